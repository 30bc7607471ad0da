// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import uehw.hw.Generated;
import uehw.hw.PortInfo;

/**
 * The packaging an FPGA engineer's tools read, written from what a generation made: a FuseSoC
 * CAPI2 core file (`<base>.core`) and an IP-XACT IEEE 1685-2014 component (`component.xml`) for
 * Vivado's IP catalog and other IP-XACT tools. The bus interfaces use the AMBA signal names
 * (AWVALID, TDATA, ...) under Vivado's bus definitions (xilinx.com:interface:aximm / axis,
 * xilinx.com:signal:clock / reset); ports outside those buses (the blocks' own valid/ready
 * streams with named fields) are ports of the model only.
 */
public final class Packaging {
    public static final String IPXACT_NS = "http://www.accellera.org/XMLSchema/IPXACT/1685-2014";
    public static final String VENDOR = "uehw";
    public static final String LIBRARY = "uehw";

    private Packaging() {
    }

    public static String coreFile(String fileBase) {
        return fileBase + ".core";
    }

    public static final String COMPONENT_FILE = "component.xml";

    /** A bus interface: its name, the bus and abstraction definitions, its mode and its port map (logical -> physical). */
    record Bus(String name, String busName, String library, String mode, Map<String, String> portMap) {
    }

    /** The bus interfaces the ports make: clock, reset, the AXI4-Lite CSR port, AXI4-Stream ports. */
    static List<Bus> buses(List<PortInfo> ports) {
        List<Bus> buses = new ArrayList<>();
        Map<String, String> clk = new LinkedHashMap<>();
        Map<String, String> rst = new LinkedHashMap<>();
        for (PortInfo p : ports) {
            if (p.name().equals("clk")) {
                clk.put("CLK", "clk");
            } else if (p.name().equals("reset")) {
                rst.put("RST", "reset");
            }
        }
        for (String[] axi : new String[][] {{"ctrl", "aximm", "slave"}, {"s_axis", "axis", "slave"}, {"m_axis", "axis", "master"}}) {
            Map<String, String> map = new LinkedHashMap<>();
            for (PortInfo p : ports) {
                if (p.name().startsWith(axi[0] + "_")) {
                    map.put(p.name().substring(axi[0].length() + 1).toUpperCase(java.util.Locale.ROOT), p.name());
                }
            }
            if (!map.isEmpty()) {
                buses.add(new Bus(axi[0], axi[1], "interface", axi[2], map));
            }
        }
        List<Bus> all = new ArrayList<>();
        if (!clk.isEmpty()) {
            all.add(new Bus("clk", "clock", "signal", "slave", clk));
        }
        if (!rst.isEmpty()) {
            all.add(new Bus("reset", "reset", "signal", "slave", rst));
        }
        all.addAll(buses);
        return all;
    }

    static void write(String block, String description, Generated g, Path dir, String version, List<String> files)
            throws IOException {
        Files.writeString(dir.resolve(COMPONENT_FILE), component(description, g, version, files));
        Files.writeString(dir.resolve(coreFile(g.fileBase())), core(block, description, g, version, files));
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** The IP-XACT component (IEEE 1685-2014), in the standard's element order. */
    static String component(String description, Generated g, String version, List<String> files) {
        StringBuilder x = new StringBuilder();
        x.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
         .append("<!-- SPDX-License-Identifier: Apache-2.0 -->\n")
         .append("<!-- IP-XACT (IEEE 1685-2014) component of ").append(g.topModule()).append(", written by hwgen generate. -->\n")
         .append("<ipxact:component xmlns:ipxact=\"").append(IPXACT_NS).append("\"\n")
         .append("    xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n")
         .append("    xsi:schemaLocation=\"").append(IPXACT_NS).append(' ').append(IPXACT_NS).append("/index.xsd\">\n")
         .append("  <ipxact:vendor>").append(VENDOR).append("</ipxact:vendor>\n")
         .append("  <ipxact:library>").append(LIBRARY).append("</ipxact:library>\n")
         .append("  <ipxact:name>").append(g.topModule()).append("</ipxact:name>\n")
         .append("  <ipxact:version>").append(xml(version)).append("</ipxact:version>\n");
        List<Bus> buses = buses(g.ports());
        x.append("  <ipxact:busInterfaces>\n");
        for (Bus b : buses) {
            x.append("    <ipxact:busInterface>\n")
             .append("      <ipxact:name>").append(b.name()).append("</ipxact:name>\n")
             .append("      <ipxact:busType vendor=\"xilinx.com\" library=\"").append(b.library()).append("\" name=\"")
             .append(b.busName()).append("\" version=\"1.0\"/>\n")
             .append("      <ipxact:abstractionTypes>\n        <ipxact:abstractionType>\n")
             .append("          <ipxact:abstractionRef vendor=\"xilinx.com\" library=\"").append(b.library()).append("\" name=\"")
             .append(b.busName()).append("_rtl\" version=\"1.0\"/>\n")
             .append("          <ipxact:portMaps>\n");
            for (Map.Entry<String, String> e : b.portMap().entrySet()) {
                x.append("            <ipxact:portMap>\n")
                 .append("              <ipxact:logicalPort><ipxact:name>").append(e.getKey()).append("</ipxact:name></ipxact:logicalPort>\n")
                 .append("              <ipxact:physicalPort><ipxact:name>").append(e.getValue()).append("</ipxact:name></ipxact:physicalPort>\n")
                 .append("            </ipxact:portMap>\n");
            }
            x.append("          </ipxact:portMaps>\n        </ipxact:abstractionType>\n      </ipxact:abstractionTypes>\n")
             .append("      <ipxact:").append(b.mode()).append("/>\n");
            Map<String, String> params = new LinkedHashMap<>();
            if (b.name().equals("clk")) {
                List<String> associated = buses.stream().map(Bus::name).filter(n -> !n.equals("clk") && !n.equals("reset")).toList();
                if (!associated.isEmpty()) {
                    params.put("ASSOCIATED_BUSIF", String.join(":", associated));
                }
                params.put("ASSOCIATED_RESET", "reset");
            } else if (b.name().equals("reset")) {
                params.put("POLARITY", "ACTIVE_HIGH");
            }
            if (!params.isEmpty()) {
                x.append("      <ipxact:parameters>\n");
                for (Map.Entry<String, String> e : params.entrySet()) {
                    x.append("        <ipxact:parameter parameterId=\"").append(e.getKey()).append("\">\n")
                     .append("          <ipxact:name>").append(e.getKey()).append("</ipxact:name>\n")
                     .append("          <ipxact:value>").append(e.getValue()).append("</ipxact:value>\n")
                     .append("        </ipxact:parameter>\n");
                }
                x.append("      </ipxact:parameters>\n");
            }
            x.append("    </ipxact:busInterface>\n");
        }
        x.append("  </ipxact:busInterfaces>\n");
        x.append("  <ipxact:model>\n")
         .append("    <ipxact:views>\n      <ipxact:view>\n        <ipxact:name>rtl</ipxact:name>\n")
         .append("        <ipxact:componentInstantiationRef>verilog</ipxact:componentInstantiationRef>\n")
         .append("      </ipxact:view>\n    </ipxact:views>\n")
         .append("    <ipxact:instantiations>\n      <ipxact:componentInstantiation>\n")
         .append("        <ipxact:name>verilog</ipxact:name>\n        <ipxact:language>Verilog</ipxact:language>\n")
         .append("        <ipxact:moduleName>").append(g.topModule()).append("</ipxact:moduleName>\n")
         .append("        <ipxact:fileSetRef><ipxact:localName>rtl</ipxact:localName></ipxact:fileSetRef>\n")
         .append("      </ipxact:componentInstantiation>\n    </ipxact:instantiations>\n")
         .append("    <ipxact:ports>\n");
        for (PortInfo p : g.ports()) {
            x.append("      <ipxact:port>\n        <ipxact:name>").append(p.name()).append("</ipxact:name>\n")
             .append("        <ipxact:wire>\n          <ipxact:direction>").append(p.direction().equals("input") ? "in" : "out")
             .append("</ipxact:direction>\n");
            if (p.width() > 1) {
                x.append("          <ipxact:vectors><ipxact:vector><ipxact:left>").append(p.width() - 1)
                 .append("</ipxact:left><ipxact:right>0</ipxact:right></ipxact:vector></ipxact:vectors>\n");
            }
            x.append("        </ipxact:wire>\n      </ipxact:port>\n");
        }
        x.append("    </ipxact:ports>\n  </ipxact:model>\n");
        x.append("  <ipxact:fileSets>\n    <ipxact:fileSet>\n      <ipxact:name>rtl</ipxact:name>\n");
        for (String f : files) {
            x.append("      <ipxact:file>\n        <ipxact:name>").append(xml(f)).append("</ipxact:name>\n");
            if (f.endsWith(".v")) {
                x.append("        <ipxact:fileType>verilogSource</ipxact:fileType>\n");
            } else {
                x.append("        <ipxact:fileType user=\"").append(f.substring(f.lastIndexOf('.') + 1)).append("\">user</ipxact:fileType>\n");
            }
            x.append("      </ipxact:file>\n");
        }
        x.append("    </ipxact:fileSet>\n  </ipxact:fileSets>\n")
         .append("  <ipxact:description>").append(xml(description)).append("</ipxact:description>\n")
         .append("</ipxact:component>\n");
        return x.toString();
    }

    /** The FuseSoC CAPI2 core: the Verilog, the scoped constraints, the lint waivers; a default and a lint target. */
    static String core(String block, String description, Generated g, String version, List<String> files) {
        StringBuilder y = new StringBuilder("CAPI=2:\n# SPDX-License-Identifier: Apache-2.0\n")
                .append("# FuseSoC core of ").append(g.topModule()).append(", written by hwgen generate.\n")
                .append("name: ").append(VENDOR).append(':').append(LIBRARY).append(':').append(g.topModule()).append(':')
                .append(version).append('\n')
                .append("description: \"").append(description.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n")
                .append("filesets:\n  rtl:\n    files:\n");
        for (String f : files) {
            if (f.endsWith(".v")) {
                y.append("      - ").append(f).append('\n');
            }
        }
        y.append("    file_type: verilogSource\n");
        List<String> roms = files.stream().filter(f -> f.endsWith(".bin")).toList();
        if (!roms.isEmpty()) {
            y.append("  roms:\n    files:\n");
            for (String f : roms) {
                y.append("      - ").append(f).append(": {file_type: user, copyto: ").append(f).append("}\n");
            }
        }
        y.append("  constraints:\n    files:\n      - ").append(Constraints.scopedXdc(g.fileBase())).append("\n    file_type: xdc\n");
        y.append("  waivers:\n    files:\n      - ").append(IntegrationKit.waiversFile(g.fileBase())).append("\n    file_type: vlt\n");
        y.append("targets:\n")
         .append("  default:\n    filesets: [rtl").append(roms.isEmpty() ? "" : ", roms").append(", constraints]\n    toplevel: ").append(g.topModule()).append('\n')
         .append("  lint:\n    default_tool: verilator\n    filesets: [rtl").append(roms.isEmpty() ? "" : ", roms").append(", waivers]\n    toplevel: ").append(g.topModule()).append('\n')
         .append("    tools:\n      verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n");
        return y.toString();
    }
}
