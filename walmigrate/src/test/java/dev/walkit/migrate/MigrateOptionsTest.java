package dev.walkit.migrate;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class MigrateOptionsTest {
    static MigrateOptions with(List<String> endpoints, Path cacert) {
        return new MigrateOptions(endpoints, "", 128, 4, false, 3600, cacert, null, null, null, null);
    }

    @Test
    void endpointsAsEtcdctlTakesThemGetAScheme() {
        assertEquals(List.of("http://127.0.0.1:2379", "http://etcd-1:2379", "https://x:1"),
                with(List.of("127.0.0.1:2379", " etcd-1:2379 ", "https://x:1"), null).endpoints());
        assertEquals(List.of("https://127.0.0.1:2379"), with(List.of("127.0.0.1:2379"), Path.of("ca.pem")).endpoints());
        assertNull(with(List.of("127.0.0.1:2379", "http://[::1]:2379"), null).validate());
    }

    @Test
    void whatIsNotAnEtcdUrlIsAUsageError() {
        for (String bad : new String[] {"http://[::1", "ftp://h:1", "http://h", "h", "http://:2379"}) {
            String e = bad.contains("://") ? bad : "http://" + bad;
            assertEquals("--endpoints: '" + e + "' is not an etcd client URL (HOST:PORT, http://HOST:PORT or https://HOST:PORT)",
                    with(List.of(bad), null).validate(), bad);
        }
    }

    @Test
    void theCommandLineSaysSoWithExitTwo() {
        UnreachableTargetTest.Run r = UnreachableTargetTest.run("wal", "--endpoints", "http://[::1", "--wal", "x");
        assertEquals(2, r.exit(), r.err());
        assertEquals("walmigrate: --endpoints: 'http://[::1' is not an etcd client URL (HOST:PORT, http://HOST:PORT or https://HOST:PORT)\n", r.err());
    }
}
