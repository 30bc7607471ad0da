// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No import cycle anywhere (docs/architecture.md): the modules' direction is the compiler's to
 * enforce; this finds cycles between the packages inside them, from every reference to a class of
 * another uehw package (imports and qualified names) in the Java and Scala sources.
 */
@Tag("tools")
class PackageCyclesTest {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+)");
    private static final Pattern REFERENCE = Pattern.compile("\\b(uehw(?:\\.[a-z]\\w*)+)\\.[A-Z]");
    private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|(?s)/\\*.*?\\*/");

    @Test
    void noPackageDependsOnItselfThroughOthers() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (String root : List.of("hw/src", "sim", "testbench/src")) {
            try (Stream<Path> files = Files.walk(Path.of(root))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".scala")).toList()) {
                    String text = COMMENT.matcher(Files.readString(f)).replaceAll("");
                    Matcher pkg = PACKAGE.matcher(text);
                    if (!pkg.find()) {
                        continue;
                    }
                    Set<String> out = uses.computeIfAbsent(pkg.group(1), k -> new TreeSet<>());
                    Matcher ref = REFERENCE.matcher(text);
                    while (ref.find()) {
                        if (!ref.group(1).equals(pkg.group(1))) {
                            out.add(ref.group(1));
                        }
                    }
                }
            }
        }
        assertTrue(uses.size() > 20, "found only " + uses.size() + " packages");
        List<List<String>> cycles = stronglyConnected(uses);
        assertTrue(cycles.isEmpty(), "packages that depend on each other: " + cycles);
    }

    /** Tarjan's strongly connected components of more than one package. */
    static List<List<String>> stronglyConnected(Map<String, Set<String>> edges) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        List<List<String>> found = new ArrayList<>();
        for (String v : edges.keySet()) {
            if (!index.containsKey(v)) {
                visit(v, edges, index, low, stack, found);
            }
        }
        return found;
    }

    private static void visit(String v, Map<String, Set<String>> edges, Map<String, Integer> index, Map<String, Integer> low,
                              Deque<String> stack, List<List<String>> found) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        for (String w : edges.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                visit(w, edges, index, low, stack, found);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (stack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                found.add(component);
            }
        }
    }

    @Test
    void aCycleIsFound() {
        Map<String, Set<String>> edges = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        List<List<String>> cycles = stronglyConnected(new TreeMap<>(edges));
        assertTrue(cycles.size() == 1 && new TreeSet<>(cycles.get(0)).equals(Set.of("a", "b", "c")), cycles.toString());
    }
}
