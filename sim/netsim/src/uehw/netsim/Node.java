// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

/** A host or a switch: it takes the packets its links deliver. */
public interface Node {
    void receive(Packet p, Port from);

    String name();
}
