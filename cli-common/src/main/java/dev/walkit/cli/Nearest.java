package dev.walkit.cli;

import java.util.Collection;

/** The name a mistyped one most likely meant, as git's "did you mean": one place for the tools and the shell. */
public final class Nearest {
    private Nearest() {
    }

    /** Of {@code names}, the one {@code typed} most likely meant (a prefix either way, or few edits away), or null. */
    public static String of(String typed, Collection<String> names) {
        if (typed.isEmpty()) return null;
        String best = null;
        for (String name : names) {
            boolean close = name.startsWith(typed) || typed.startsWith(name) || edits(typed, name) <= 1 + name.length() / 6;
            if (close && (best == null || edits(typed, name) < edits(typed, best))) best = name;
        }
        return best;
    }

    /** Edit distance with a swap of two neighbours as one edit (optimal string alignment): {@code gte} is one from {@code get}. */
    public static int edits(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
