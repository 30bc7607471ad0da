// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Every test has one role (pom.xml, docs/architecture.md): its own tag of model, netsim, tools or
 * rtl, else its class's; a class tagged rtl has rtl tests only. `make test-fast` runs the roles
 * that need no HDL tool; a test without a role would be run by neither it nor a reader's idea of it.
 */
@Tag("tools")
class TestRolesTest {
    static final Set<String> ROLES = Set.of("model", "netsim", "tools", "rtl");

    @Test
    void everyTestHasExactlyOneRole() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(TestRolesTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> wrong = new ArrayList<>();
        int tests = 0;
        try (Stream<Path> files = Files.walk(root.resolve("uehw/tb"), 1)) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("\\w+Test\\.class")).toList()) {
                Class<?> c = Class.forName("uehw.tb." + f.getFileName().toString().replace(".class", ""));
                List<String> classRoles = roles(c.getAnnotationsByType(Tag.class));
                for (Method m : c.getDeclaredMethods()) {
                    if (!m.isAnnotationPresent(Test.class) && !m.isAnnotationPresent(ParameterizedTest.class)) {
                        continue;
                    }
                    tests++;
                    List<String> own = roles(m.getAnnotationsByType(Tag.class));
                    // its own role, else its class's; an rtl class has only rtl tests (the tag expression of
                    // make test-fast excludes whatever carries rtl)
                    List<String> role = own.isEmpty() ? classRoles : own;
                    boolean ok = role.size() == 1 && (!classRoles.contains("rtl") || role.contains("rtl"));
                    if (!ok) {
                        wrong.add(c.getSimpleName() + "#" + m.getName() + " (class " + classRoles + ", method " + own + ")");
                    }
                }
            }
        }
        assertTrue(tests > 150, "found only " + tests + " tests under " + root);
        assertTrue(wrong.isEmpty(), "tests without exactly one role of " + ROLES + ": " + wrong);
    }

    private static List<String> roles(Tag[] tags) {
        return Arrays.stream(tags).map(Tag::value).filter(ROLES::contains).toList();
    }
}
