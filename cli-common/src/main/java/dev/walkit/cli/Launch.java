package dev.walkit.cli;

import java.lang.reflect.InvocationTargetException;

/**
 * What {@code bin/<tool>} runs: {@code Launch TOOL MAIN-CLASS ARGS...}. {@code --version} and {@code --help}
 * are answered by {@link FastStart} without loading picocli or the tool; anything else goes to the
 * tool's own {@code main}.
 */
public final class Launch {
    private Launch() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length < 2) {
            System.err.println("usage: Launch TOOL MAIN-CLASS [ARGS...]");
            System.exit(ExitCode.USAGE.code());
        }
        String[] rest = new String[args.length - 2];
        System.arraycopy(args, 2, rest, 0, rest.length);
        int fast = FastStart.answer(args[0], rest);
        if (fast >= 0) System.exit(fast);
        try {
            Class.forName(args[1]).getMethod("main", String[].class).invoke(null, (Object) rest);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
