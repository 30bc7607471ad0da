// SPDX-License-Identifier: Apache-2.0
package uehw.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where the pinned YoWASP Yosys (the UltraScale+ estimate's synthesis and timing) is found, and its
 * install into a user cache for `hwgen report` run from the jar alone. Looked for in order: the
 * system property `uehw.yowasp` (a `yosys.mjs` runner); `build/yowasp/yosys.mjs` under the working
 * directory (`make yowasp` in a clone); the user cache `$XDG_CACHE_HOME/uehw/yowasp-<version>/`
 * (default `~/.cache`), where {@link #install} puts it from the jar's pinned package files.
 */
public final class YowaspTool {
    /** The pinned @yowasp/yosys version (sim/tools/yowasp/package.json). */
    public static final String VERSION = "0.55.944";
    private static final String[] PACKAGE_FILES = {"package.json", "package-lock.json", "yosys.mjs"};

    private YowaspTool() {
    }

    public static Path userCache() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("uehw").resolve("yowasp-" + VERSION);
    }

    /** The places looked in, in order. */
    public static List<Path> candidates() {
        List<Path> c = new ArrayList<>();
        String property = System.getProperty("uehw.yowasp");
        if (property != null && !property.isEmpty()) {
            c.add(Path.of(property).toAbsolutePath());
        }
        c.add(Path.of("build", "yowasp", "yosys.mjs").toAbsolutePath());
        c.add(userCache().resolve("yosys.mjs"));
        return c;
    }

    /** The first runner that is installed (its node_modules present), or null. */
    public static Path find() {
        for (Path runner : candidates()) {
            if (Files.isRegularFile(runner) && Files.isDirectory(runner.resolveSibling("node_modules").resolve("@yowasp"))) {
                return runner;
            }
        }
        return null;
    }

    /** The message for a missing YoWASP: where it was looked for and the commands that install it. */
    public static String missingMessage() {
        return "YoWASP Yosys " + VERSION + " is missing (looked in " + candidates() + "). Install it into "
                + userCache() + " with `hwgen report <block> --install-yowasp` (npm ci of the jar's pinned package; "
                + "needs node and npm, about 60 MB), or run `make yowasp` in a clone of the repository";
    }

    /** npm ci of the jar's pinned package files into the user cache; returns the runner. */
    public static Path install(java.io.PrintStream progress) throws IOException, InterruptedException {
        Path dir = userCache();
        Files.createDirectories(dir);
        for (String f : PACKAGE_FILES) {
            try (InputStream in = YowaspTool.class.getResourceAsStream("/yowasp/" + f)) {
                if (in == null) {
                    throw new IOException("the jar lacks /yowasp/" + f);
                }
                Files.write(dir.resolve(f), in.readAllBytes());
            }
        }
        progress.println("hwgen: installing YoWASP Yosys " + VERSION + " into " + dir + " (npm ci)");
        Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                .directory(dir.toFile()).inheritIO().start();
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("npm ci in " + dir + " failed");
        }
        return dir.resolve("yosys.mjs");
    }
}
