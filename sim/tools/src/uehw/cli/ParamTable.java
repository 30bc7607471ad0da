// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

import uehw.hw.BlockSpec;
import uehw.hw.Blocks;
import uehw.hw.common.ParamSpec;

/**
 * The parameter table of a block's doc page, written from its descriptor's parameters (the one
 * declaration: the CLI's options and the checks come from the same ParamSpecs). The page's table
 * starts at its {@link #HEADER} line and ends at the first line that is not a table row.
 * {@code java -cp ... uehw.cli.ParamTable [docs]} (make doc-tables) rewrites every page's table;
 * HwgenTest fails while a page's table differs from this.
 */
public final class ParamTable {
    public static final String HEADER = "| parameter | default | allowed | meaning |";

    private ParamTable() {
    }

    /** The table in Markdown, a line per parameter, each line ending in a newline. */
    public static String markdown(BlockSpec block) {
        StringBuilder md = new StringBuilder(HEADER + "\n| --- | --- | --- | --- |\n");
        for (ParamSpec p : block.paramsJava()) {
            String allowed = p.isChoice()
                    ? p.choicesJava().stream().map(c -> "`" + c + "`").collect(Collectors.joining(", "))
                    : p.allowed();
            String dflt = p.isChoice() ? "`" + p.defaultValue() + "`" : p.defaultValue();
            md.append("| `").append(p.name()).append("` | ").append(dflt).append(" | ").append(allowed).append(" | ")
                    .append(p.description().replace("|", "\\|")).append(" |\n");
        }
        return md.toString();
    }

    /** The table as the page has it (from its header line to the first line that is no table row), or null. */
    public static String ofPage(String page) {
        return PortTable.table(page, HEADER + "\n");
    }

    /** Rewrites each block page's table under {@code docs} (default docs/) from the registry. */
    public static void main(String[] args) throws IOException {
        Path docs = Path.of(args.length > 0 ? args[0] : "docs");
        for (BlockSpec b : Blocks.allJava()) {
            Path page = docs.resolve(b.docPage());
            String text = Files.readString(page);
            String old = ofPage(text);
            if (old == null) {
                throw new IllegalStateException(page + " has no parameter table (a line " + HEADER + ")");
            }
            String now = markdown(b);
            if (!old.equals(now)) {
                Files.writeString(page, text.replace(old, now));
                System.out.println("doc-tables: " + page + " rewritten");
            }
        }
    }
}
