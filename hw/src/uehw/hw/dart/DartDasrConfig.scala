// SPDX-License-Identifier: Apache-2.0
package uehw.hw.dart

import spinal.core._
import uehw.hw.common._

/**
 * Generation parameters of Dart's receiver half, DASR (dart.txt Sec. III-A..D). The run-time
 * values (idle timeout, throughput window, line-rate bytes) live in CSRs; the values here are
 * their reset defaults.
 *
 * @param senderIdBits  sender ids are this many bits (16: 64K sender NICs); the sender-to-slot
 *                      table has 2^senderIdBits entries of log2(capacity) bits in block RAM
 * @param capacity      S, senders the active set holds (a power of two); more are counted as overflow
 * @param messageBits   width of a sender's count of messages in flight (and of its announced count)
 * @param idleTimeoutNs reset value of IDLE_TIMEOUT: a sender idle longer is evicted (paper: about 2 s)
 * @param windowNs      reset value of WINDOW: the receive throughput is measured over windows this long
 * @param lineRateBytes reset value of LINE_RATE_BYTES: a window with this many bytes is at line rate
 */
case class DartDasrConfig(senderIdBits: Int = 16,
                          capacity: Int = 256,
                          messageBits: Int = 8,
                          idleTimeoutNs: Long = 2000000000L,
                          windowNs: Long = 10000,
                          lineRateBytes: Long = 118750) {
  ParamCheck(senderIdBits >= 4 && senderIdBits <= 20, "sender-id-bits", s"$senderIdBits is outside 4..20")
  ParamCheck(capacity >= 4 && capacity <= 4096 && isPow2(capacity), "capacity", s"$capacity must be a power of two in 4..4096")
  ParamCheck(messageBits >= 1 && messageBits <= 16, "message-bits", s"$messageBits is outside 1..16")
  ParamCheck(idleTimeoutNs >= 0 && idleTimeoutNs <= 0xFFFFFFFFL, "idle-timeout-ns", s"$idleTimeoutNs must be in 0..2^32-1")
  ParamCheck(windowNs >= 1 && windowNs <= 0x7FFFFFFFL, "window-ns", s"$windowNs must be in 1..2^31-1")
  ParamCheck(lineRateBytes >= 0 && lineRateBytes <= 0xFFFFFFFFL, "line-rate-bytes", s"$lineRateBytes must be in 0..2^32-1")

  val slotBits: Int = log2Up(capacity)
  val maxMessages: Int = (1 << messageBits) - 1
  /** Bits per active sender: owner id, messages, announced (slot RAM), last packet time (time RAM), occupied and queued flags. */
  def slotStateBits: Int = senderIdBits + 2 * messageBits + DartDasr.timeBits + 2
  /** The sender-to-slot table's bits. */
  def indexBits: Long = (1L << senderIdBits) * slotBits
}

object DartDasrConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("sender-id-bits", "16", "sender id width (16: 64K sender NICs). The sender-to-slot table has 2^sender-id-bits entries of log2(capacity) bits, in block RAM", 4, 20),
    ParamSpec("capacity", "256", "S, senders the set holds; a sender that finds it full is counted in OVERFLOW, which still adds to n", 4, 4096, powerOfTwo = true),
    ParamSpec("message-bits", "8", "width of a sender's count of messages in flight, and of its count of announced messages; both saturate at 2^message-bits - 1 (counted)", 1, 16),
    ParamSpec("idle-timeout-ns", "2000000000", "reset value of IDLE_TIMEOUT in ns (dart.txt Sec. III-B: about 2 s)", 0, 0xFFFFFFFFL, rangeText = "0..2^32-1"),
    ParamSpec("window-ns", "10000", "reset value of WINDOW, the receive-throughput window of Fig. 5, in ns", 1, 0x7FFFFFFFL, rangeText = "1..2^31-1"),
    ParamSpec("line-rate-bytes", "118750", "reset value of LINE_RATE_BYTES: 95% of 100 Gb/s over 10 us", 0, 0xFFFFFFFFL, rangeText = "0..2^32-1")
  )

  def fromParams(p: ParamValues): DartDasrConfig = DartDasrConfig(
    senderIdBits = p.int("sender-id-bits"), capacity = p.int("capacity"), messageBits = p.int("message-bits"),
    idleTimeoutNs = p.long("idle-timeout-ns"), windowNs = p.long("window-ns"), lineRateBytes = p.long("line-rate-bytes"))
}
