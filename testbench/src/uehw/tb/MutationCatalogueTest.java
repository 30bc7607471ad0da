// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import uehw.hw.Blocks;
import uehw.tb.mutation.Catalogue;

/**
 * The mutant catalogues `make mutants` runs (docs/verification.md) stay valid as the RTL changes:
 * every mutant's fields and kind are known and its search text occurs exactly once in its file,
 * with at least 8 mutants per block (issue 37). Runs in `make test`, in well under a second.
 */
@Tag("tools")
class MutationCatalogueTest {
    @Test
    void everyCatalogueParsesAndEveryMutantAppliesOnce() throws Exception {
        List<Catalogue.Mutant> all = Catalogue.load(Path.of("hw/src"));
        Map<String, Long> perBlock = all.stream().collect(Collectors.groupingBy(Catalogue.Mutant::block, Collectors.counting()));
        perBlock.forEach((block, n) -> assertTrue(n >= 8, block + " has " + n + " mutants, fewer than 8"));
        List<String> blocks = new ArrayList<>(List.of("window-unit")); // the skeleton of smartt and swift
        Blocks.allJava().forEach(b -> blocks.add(b.name()));
        assertTrue(perBlock.keySet().containsAll(blocks), "a block of the registry has no catalogue: " + blocks + " vs " + perBlock.keySet());
        assertTrue(all.size() >= 60, all.size() + " mutants in all");
    }
}
