// SPDX-License-Identifier: Apache-2.0
package uehw.model.dart;

/**
 * One event of the DASR block: a data packet, or one sender of a look-ahead notification
 * ({@code first}: the notification's first sender). {@code sender} is the 32-bit id field as an
 * int (ids at or above 2^senderIdBits, negative ints included, are out of range).
 */
public record DasrEvent(boolean lookAhead, int sender, boolean first, boolean last, boolean announced, boolean ecn,
                        int bytes, int group) {
    public static DasrEvent packet(int sender, boolean first, boolean last, boolean announced, boolean ecn, int bytes) {
        return new DasrEvent(false, sender, first, last, announced, ecn, bytes, 0);
    }

    public static DasrEvent lookAhead(int group, int sender, boolean firstOfNotification) {
        return new DasrEvent(true, sender, firstOfNotification, false, false, false, 0, group);
    }

    /** Applies the event to the model; a packet's reply, or null for a look-ahead. */
    public DasrModel.Reply applyTo(DasrModel m, long nowNs) {
        if (lookAhead) {
            m.lookAheadEntry(group, sender, first, nowNs);
            return null;
        }
        return m.packet(sender, first, last, announced, ecn, bytes, nowNs);
    }
}
