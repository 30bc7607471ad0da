// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import uehw.hw.BlockSpec;
import uehw.hw.Generated;
import uehw.hw.GenerationOptions;
import uehw.hw.Generator;
import uehw.hw.PortInfo;
import uehw.hw.common.ParamValues;

/** Runs one generation and writes its manifest and clock constraints next to the Verilog. */
public final class Manifest {
    private Manifest() {
    }

    public static Generated generateInto(BlockSpec block, ParamValues values, File out, double clockMhz)
            throws IOException {
        return generateInto(block, values, out, clockMhz, new GenerationOptions("", false));
    }

    public static Generated generateInto(BlockSpec block, ParamValues values, File out, double clockMhz,
                                         GenerationOptions options) throws IOException {
        Files.createDirectories(out.toPath());
        Generated g = block.generate(values, out, options);
        Constraints.write(g.fileBase(), g.topModule(), clockMhz, out.toPath());
        IntegrationKit.write(block.name(), g, out.toPath(), clockMhz);
        List<String> packaged = new java.util.ArrayList<>(List.of(g.verilog().getName(), Constraints.scopedXdc(g.fileBase())));
        try (java.util.stream.Stream<Path> s = Files.list(out.toPath())) {
            s.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".bin")).sorted().forEach(packaged::add);
        }
        Packaging.write(block.name(), block.description(), g, out.toPath(), generatorVersion(), packaged);
        String manifest = g.fileBase() + ".manifest.json";
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
        m.put("parametersSha256", Generator.parametersSha256(block.name(), values));
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

    /** The generator's commit, baked in at build time (uehw.hw.common.BlockVersion.commit). */
    public static String gitHash() {
        return uehw.hw.common.BlockVersion.commit();
    }
}
