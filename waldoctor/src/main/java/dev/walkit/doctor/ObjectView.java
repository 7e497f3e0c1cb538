package dev.walkit.doctor;

import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.kubernetes.client.proto.Runtime;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A stored value decoded whole, as auger decodes it: a Kubernetes protobuf object ({@code k8s\0} + runtime.Unknown)
 * through the Kubernetes project's generated messages (client-java-proto) printed by protobuf's JsonFormat, or a
 * JSON value (custom resources, kine's); as JSON or YAML. A Secret's {@code data} and {@code stringData} values are
 * redacted unless asked for.
 */
final class ObjectView {
    /** The generated files, each a group/version's messages (the jar's outer classes). */
    private static final List<String> FILES = List.of("V1", "V1Admission", "V1Admissionregistration", "V1Apps", "V1Authentication",
            "V1Authorization", "V1Autoscaling", "V1Batch", "V1Certificates", "V1Networking", "V1Policy", "V1Rbac", "V1Scheduling", "V1Storage",
            "V1alpha1Imagepolicy", "V1alpha1Rbac", "V1alpha1Scheduling", "V1beta1Admission", "V1beta1Admissionregistration",
            "V1beta1Apiextensions", "V1beta1Apps", "V1beta1Authentication", "V1beta1Authorization", "V1beta1Batch", "V1beta1Certificates",
            "V1beta1Extensions", "V1beta1Policy", "V1beta1Rbac", "V1beta1Storage", "V1beta2Apps", "V2beta1Autoscaling", "V2beta2Autoscaling");
    private static volatile Map<String, Descriptors.Descriptor> byName;

    private ObjectView() {
    }

    /** The message types of every generated file found, by full name ({@code k8s.io.api.core.v1.Pod}). */
    private static Map<String, Descriptors.Descriptor> types() {
        Map<String, Descriptors.Descriptor> m = byName;
        if (m != null) return m;
        m = new HashMap<>();
        for (String f : FILES) {
            try {
                Class<?> c = Class.forName("io.kubernetes.client.proto." + f);
                Descriptors.FileDescriptor d = (Descriptors.FileDescriptor) c.getMethod("getDescriptor").invoke(null);
                for (Descriptors.Descriptor t : d.getMessageTypes()) m.put(t.getFullName(), t);
            } catch (ReflectiveOperationException | LinkageError e) {
                // a group/version this version of client-java-proto does not have
            }
        }
        byName = m;
        return m;
    }

    /** The message type of {@code apiVersion} and {@code kind}: {@code v1 Pod} is k8s.io.api.core.v1.Pod, {@code batch/v1 Job} k8s.io.api.batch.v1.Job. */
    static Descriptors.Descriptor type(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "core" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        int dot = group.indexOf('.');
        if (dot > 0) group = group.substring(0, dot); // rbac.authorization.k8s.io → rbac
        return types().get("k8s.io.api." + group + "." + version + "." + kind);
    }

    /** {@code v} decoded to a tree (maps, lists, strings), or null with {@code why[0]} saying why not. */
    static Object tree(byte[] v, String[] why) {
        if (v.length >= 4 && Arrays.equals(v, 0, 4, ValueView.K8S_MAGIC, 0, 4)) {
            try {
                Runtime.Unknown u = Runtime.Unknown.parseFrom(Arrays.copyOfRange(v, 4, v.length));
                String apiVersion = u.getTypeMeta().getApiVersion();
                String kind = u.getTypeMeta().getKind();
                Descriptors.Descriptor t = type(apiVersion, kind);
                if (t == null) {
                    why[0] = "a Kubernetes object of " + apiVersion + " " + kind + ", which this build's generated messages do not have";
                    return null;
                }
                String json = JsonFormat.printer().print(DynamicMessage.parseFrom(t, u.getRaw()));
                Map<String, Object> obj = new LinkedHashMap<>();
                obj.put("apiVersion", apiVersion);
                obj.put("kind", kind);
                Object body = times(load(json));
                if (body instanceof Map<?, ?> b) b.forEach((k, x) -> obj.put(String.valueOf(k), x));
                return obj;
            } catch (InvalidProtocolBufferException e) {
                why[0] = "a k8s\\0 value whose protobuf does not decode: " + e.getMessage();
                return null;
            }
        }
        String s = ValueView.utf8(v);
        if (s != null && ValueView.looksJson(s.strip())) {
            try {
                return load(s);
            } catch (RuntimeException e) {
                why[0] = "JSON that does not parse: " + e.getMessage();
                return null;
            }
        }
        why[0] = "neither a Kubernetes protobuf object (k8s\\0) nor JSON";
        return null;
    }

    /** Kubernetes' Time and MicroTime ({seconds, nanos} in protobuf) as the RFC 3339 text its JSON form has. */
    private static Object times(Object x) {
        if (x instanceof Map<?, ?> m) {
            if (m.containsKey("seconds") && m.size() <= 2 && (m.size() == 1 || m.containsKey("nanos"))) {
                try {
                    long sec = Long.parseLong(String.valueOf(m.get("seconds")));
                    int nanos = m.containsKey("nanos") ? Integer.parseInt(String.valueOf(m.get("nanos"))) : 0;
                    return java.time.Instant.ofEpochSecond(sec, nanos).toString();
                } catch (NumberFormatException e) {
                    return x;
                }
            }
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(k, times(v)));
            return out;
        }
        if (x instanceof List<?> l) return l.stream().map(ObjectView::times).toList();
        return x;
    }

    private static Object load(String json) {
        LoaderOptions o = new LoaderOptions();
        o.setCodePointLimit(Integer.MAX_VALUE);
        return new Yaml(o).load(json);
    }

    /** A Secret's data and stringData values replaced, keys kept. */
    @SuppressWarnings("unchecked")
    static void redact(Object tree) {
        if (!(tree instanceof Map<?, ?> m)) return;
        for (String f : List.of("data", "stringData")) {
            if (m.get(f) instanceof Map<?, ?> d) ((Map<Object, Object>) d).replaceAll((k, x) -> "<redacted; --show-secrets to show>");
        }
    }

    /** The value as {@code format} ("json" or "yaml"), or null with {@code why[0]} saying why not. */
    static String render(String key, byte[] v, String format, boolean showSecrets, String[] why) {
        Object tree = tree(v, why);
        if (tree == null) return null;
        if (key.startsWith(ValueView.SECRETS) && !showSecrets) redact(tree);
        if (format.equals("yaml")) {
            DumperOptions d = new DumperOptions();
            d.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
            d.setWidth(Integer.MAX_VALUE);
            return new Yaml(d).dump(tree).stripTrailing();
        }
        dev.walkit.cli.Json j = new dev.walkit.cli.Json();
        json(j, tree);
        return ValueView.prettyJson(j.toString());
    }

    /** The tree through the tools' one JSON writer (its escaping), indented as every JSON value is shown. */
    private static void json(dev.walkit.cli.Json j, Object x) {
        if (x instanceof Map<?, ?> m) {
            j.beginObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                j.name(String.valueOf(e.getKey()));
                json(j, e.getValue());
            }
            j.endObject();
        } else if (x instanceof List<?> l) {
            j.beginArray();
            for (Object o : l) json(j, o);
            j.endArray();
        } else if (x instanceof Double || x instanceof Float) {
            j.value(((Number) x).doubleValue());
        } else if (x instanceof Number n) {
            j.value(n.longValue());
        } else if (x instanceof Boolean v) {
            j.value(v);
        } else if (x == null) {
            j.nullValue();
        } else if (x instanceof byte[] bytes) {
            j.value(java.util.Base64.getEncoder().encodeToString(bytes));
        } else {
            j.value(String.valueOf(x));
        }
    }
}
