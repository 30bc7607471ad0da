// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import uehw.hw.BlockSpec;
import uehw.hw.Generated;
import uehw.hw.PortInfo;
import uehw.hw.common.ParamValues;

/** Runs one generation and writes its manifest and clock constraints next to the Verilog. */
public final class Manifest {
    private Manifest() {
    }

    public static Generated generateInto(BlockSpec block, ParamValues values, File out, double clockMhz)
            throws IOException {
        Files.createDirectories(out.toPath());
        Generated g = block.generate(values, out);
        Constraints.write(g.topModule(), clockMhz, out.toPath());
        IntegrationKit.write(block.name(), g, out.toPath(), clockMhz);
        String manifest = g.topModule() + ".manifest.json";
        writeManifest(block, values, g, out.toPath().resolve(manifest), clockMhz,
                IntegrationKit.sha256(out.toPath(), manifest));
        return g;
    }

    static void writeManifest(BlockSpec block, ParamValues values, Generated g, Path file, double clockMhz,
                              Map<String, String> fileSha256) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("block", block.name());
        m.put("topModule", g.topModule());
        m.put("verilog", g.verilog().getName());
        m.put("parameters", values.asJava());
        m.put("clockMhz", clockMhz);
        List<Map<String, Object>> ports = new java.util.ArrayList<>();
        for (PortInfo p : g.ports()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("name", p.name());
            pm.put("direction", p.direction());
            pm.put("width", p.width());
            ports.add(pm);
        }
        m.put("ports", ports);
        m.put("facts", g.facts());
        m.put("generatorVersion", generatorVersion());
        m.put("gitHash", gitHash());
        m.put("files", fileSha256);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), m);
    }

    public static String generatorVersion() {
        try (InputStream in = Manifest.class.getResourceAsStream("/uehw-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The checkout's commit (with "-dirty" for local changes), or "unknown" outside a git work tree. */
    public static String gitHash() {
        try {
            String hash = run("git", "rev-parse", "HEAD");
            if (hash.isEmpty()) {
                return "unknown";
            }
            return run("git", "status", "--porcelain", "--untracked-files=no").isEmpty() ? hash : hash + "-dirty";
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        byte[] outBytes = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            return "";
        }
        return new String(outBytes, StandardCharsets.UTF_8).trim();
    }
}
