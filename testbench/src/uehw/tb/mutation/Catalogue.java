// SPDX-License-Identifier: Apache-2.0
package uehw.tb.mutation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The mutation catalogues: one {@code <block>.mutants.txt} beside each block's Scala sources. A catalogue
 * starts with {@code block:} and {@code tests:} (the test classes that must kill its mutants), then
 * one paragraph per mutant:
 * <pre>
 * id: evs-wrap                      unique within the block
 * kind: wrap                        one of {@link #KINDS}
 * what: the entropy wraps one value late   (the behaviour the mutant changes)
 * file: Reps.scala                  beside the catalogue
 * find: ...                         exact text, found exactly once in the file
 * replace: ...
 * equivalent: ...                   only for a mutant no test can kill: why
 * </pre>
 */
public final class Catalogue {
    /** The places bugs hide (issue 37): the kinds a mutant declares. */
    public static final List<String> KINDS = List.of("off-by-one", "bypass", "term", "saturation", "wrap",
            "reset", "wait", "timing", "constant", "condition");

    public record Mutant(String block, List<String> tests, String id, String kind, String what, Path file,
                         String find, String replace, String equivalent) {
        public String name() {
            return block + "/" + id;
        }

        /** The mutated text of {@code file}: {@code find} must occur exactly once. */
        public String apply(String source) {
            int at = source.indexOf(find);
            if (at < 0 || source.indexOf(find, at + 1) >= 0) {
                throw new IllegalStateException(name() + ": 'find' occurs " + (at < 0 ? "nowhere" : "more than once")
                        + " in " + file + ": " + find);
            }
            return source.substring(0, at) + replace + source.substring(at + find.length());
        }
    }

    private Catalogue() {
    }

    /** Every catalogue under {@code hwRoot}, checked: fields present, ids unique, each mutant applies once. */
    public static List<Mutant> load(Path hwRoot) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(hwRoot)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".mutants.txt")).sorted().toList();
        }
        List<Mutant> all = new ArrayList<>();
        for (Path f : files) {
            all.addAll(parse(f));
        }
        Map<String, Mutant> seen = new LinkedHashMap<>();
        for (Mutant m : all) {
            if (seen.put(m.name(), m) != null) {
                throw new IllegalStateException("mutant " + m.name() + " is declared twice");
            }
            m.apply(Files.readString(m.file()));
        }
        return all;
    }

    static List<Mutant> parse(Path file) throws IOException {
        String block = null;
        List<String> tests = null;
        List<Mutant> out = new ArrayList<>();
        Map<String, String> cur = new LinkedHashMap<>();
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        lines.add("");
        int lineNo = 0;
        for (String line : lines) {
            lineNo++;
            if (line.startsWith("#")) {
                continue;
            }
            if (line.isBlank()) {
                if (!cur.isEmpty()) {
                    if (block == null || tests == null) {
                        throw new IllegalStateException(file + ": 'block:' and 'tests:' come before the first mutant");
                    }
                    out.add(mutant(file, block, tests, cur));
                    cur.clear();
                }
                continue;
            }
            int colon = line.indexOf(": ");
            if (colon < 0) {
                throw new IllegalStateException(file + ":" + lineNo + ": expected 'key: value'");
            }
            String key = line.substring(0, colon).trim();
            String value = line.substring(colon + 2);
            switch (key) {
                case "block" -> block = value.trim();
                case "tests" -> {
                    tests = List.of(value.trim().split("\\s+"));
                    for (String t : tests) {
                        if (!t.matches("[A-Z][A-Za-z0-9_]*")) {
                            throw new IllegalStateException(file + ":" + lineNo + ": '" + t + "' is not a test class name (names are separated by spaces)");
                        }
                    }
                }
                default -> {
                    if (cur.put(key, value) != null) {
                        throw new IllegalStateException(file + ":" + lineNo + ": '" + key + "' twice in one mutant");
                    }
                }
            }
        }
        return out;
    }

    private static Mutant mutant(Path catalogue, String block, List<String> tests, Map<String, String> f) {
        for (String k : List.of("id", "kind", "what", "file", "find", "replace")) {
            if (!f.containsKey(k)) {
                throw new IllegalStateException(catalogue + ": mutant " + f.getOrDefault("id", "?") + " has no '" + k + ":'");
            }
        }
        for (String k : f.keySet()) {
            if (!List.of("id", "kind", "what", "file", "find", "replace", "equivalent").contains(k)) {
                throw new IllegalStateException(catalogue + ": mutant " + f.get("id") + ": unknown key '" + k + "'");
            }
        }
        if (!KINDS.contains(f.get("kind").trim())) {
            throw new IllegalStateException(catalogue + ": mutant " + f.get("id") + ": kind '" + f.get("kind") + "' is not one of " + KINDS);
        }
        if (f.get("find").equals(f.get("replace"))) {
            throw new IllegalStateException(catalogue + ": mutant " + f.get("id") + " replaces its text with itself");
        }
        return new Mutant(block, tests, f.get("id").trim(), f.get("kind").trim(), f.get("what").trim(),
                // normalised: MutationRun finds the file by path equality (a "../common/X.scala" was never applied)
                catalogue.resolveSibling(f.get("file").trim()).normalize(), f.get("find"), f.get("replace"), f.get("equivalent"));
    }
}
