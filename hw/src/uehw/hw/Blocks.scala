package uehw.hw

import java.io.File
import scala.jdk.CollectionConverters._

import spinal.core._
import spinal.lib.{master, slave}
import uehw.hw.common._
import uehw.hw.dart._
import uehw.hw.nic._
import uehw.hw.nscc._
import uehw.hw.rccc._
import uehw.hw.reps._
import uehw.hw.smartt._
import uehw.hw.swift._
import uehw.hw.trim._

/** A port of a generated top, for the manifest. */
case class PortInfo(name: String, direction: String, width: Int)

/**
 * What one generation wrote. `fileBase` names the folder's files (`uehw_<block>`, the same for every
 * parameter set); `topModule` is the top's module name, which every other module's name begins with.
 */
case class Generated(topModule: String, fileBase: String, verilog: File, ports: java.util.List[PortInfo],
                     facts: java.util.Map[String, String])

/** How one generation names its modules and where its ROM contents go. */
case class GenerationOptions(prefix: String = "", romFiles: Boolean = false)

/**
 * A configuration the reports measure: `label` names it in build/reports and docs/resources.md,
 * `params` are the parameters that differ from the defaults (none: the default configuration).
 * `make reports` times the default and every point `inReports`; `make reports-full` times them all.
 */
case class SweepPoint(label: String, params: Map[String, String] = Map.empty, inReports: Boolean = false) {
  def isDefault: Boolean = params.isEmpty
  def paramsJava: java.util.Map[String, String] = new java.util.TreeMap[String, String](params.asJava)
}

/** A generation `make rtl` lints beside the default one: a mode or size the defaults do not cover. */
case class LintVariant(name: String, params: Map[String, String], why: String) {
  def paramsJava: java.util.Map[String, String] = new java.util.LinkedHashMap[String, String](params.asJava)
}

/**
 * A block the generator knows, declared once: its parameters (name, default, range, meaning: the
 * CLI's options, the checks, the manifest and the doc page's parameter table come from them), how
 * to elaborate it, its doc page, the configurations the reports sweep and the variants `make rtl`
 * lints. Everything that lists the blocks (hwgen, the Makefile through `hwgen list`, the reports,
 * the port tables, the tests) iterates `Blocks.all`.
 */
trait BlockSpec {
  def name: String
  def description: String
  def params: Seq[ParamSpec]
  def paramsJava: java.util.List[ParamSpec] = params.asJava
  /** The block's page under docs/. */
  def docPage: String
  /** The configurations the reports measure, the default among them. */
  def sweep: Seq[SweepPoint]
  def sweepJava: java.util.List[SweepPoint] = sweep.asJava
  /** The generations `make rtl` lints beside the default. */
  def lintVariants: Seq[LintVariant]
  def lintVariantsJava: java.util.List[LintVariant] = lintVariants.asJava
  /** Checks every value; throws ParameterException naming the first bad parameter. */
  def check(values: java.util.Map[String, String]): ParamValues
  /** Emits Verilog (and register docs) into outDir. */
  def generate(values: ParamValues, outDir: File, options: GenerationOptions): Generated
  def generate(values: ParamValues, outDir: File): Generated = generate(values, outDir, GenerationOptions())
  /** The stable base of the generated files' names: `uehw_` and the block's name with '_' for '-'. */
  def fileBase: String = "uehw_" + name.replace('-', '_')
  /** The top's module name when the user gives no prefix: the file base and a short hash of the parameters. */
  def defaultPrefix(values: ParamValues): String = fileBase + "_" + Generator.parametersSha256(name, values).take(6)
  /** A fresh instance of the block's top, for benches. */
  def top(values: ParamValues): Component
  /** Facts for reports, e.g. state bits per connection against the paper. */
  def facts(values: ParamValues): java.util.Map[String, String]
}

/** A block made of one config case class and one top component with a register map. */
abstract class ConfiguredBlock[C](val name: String, val description: String, val params: Seq[ParamSpec],
                                  val docPage: String, val sweep: Seq[SweepPoint], val lintVariants: Seq[LintVariant] = Nil)
    extends BlockSpec {
  require(sweep.count(_.isDefault) == 1, s"block $name: its sweep needs exactly one default point")
  for (p <- sweep.flatMap(_.params.keys) ++ lintVariants.flatMap(_.params.keys))
    require(params.exists(_.name == p), s"block $name: a sweep point or lint variant sets unknown parameter '$p'")

  /** Builds the config; its checks throw ParameterException for cross-parameter rules. */
  def config(values: ParamValues): C
  def build(cfg: C): Component with RegisterDocs
  def factsOf(cfg: C): Map[String, String]

  def check(values: java.util.Map[String, String]): ParamValues = {
    val v = new ParamValues(params, values.asScala.toMap)
    config(v)
    v
  }
  def top(values: ParamValues): Component = build(config(values))
  def facts(values: ParamValues): java.util.Map[String, String] =
    new java.util.TreeMap[String, String](factsOf(config(values)).asJava)
  def generate(values: ParamValues, outDir: File, options: GenerationOptions): Generated = {
    val top = if (options.prefix.isEmpty) defaultPrefix(values) else Generator.checkPrefix(options.prefix)
    val report = Generator.blockConfig(outDir, fileBase, options.romFiles, Generator.parametersSha256(name, values)).generateVerilog {
      val t = build(config(values))
      t.setDefinitionName(top)
      t.setName(top)                     // --rom-files: the $readmemb files carry it too
      t.emitRegisterDocs()
      t
    }
    Generator.describe(report, outDir, fileBase, factsOf(config(values)))
  }
}

object Blocks {
  val reps: BlockSpec = new ConfiguredBlock[RepsConfig]("reps",
    "REPS entropy cache (NIC send path): recycled-entropy load balancer, modes reps / reps-lite / ops", RepsConfig.params,
    docPage = "reps.md",
    sweep = Seq(
      SweepPoint("reps N=256", Map("connections" -> "256")),
      SweepPoint("reps N=1024 (default)"),
      SweepPoint("reps N=4096", Map("connections" -> "4096")),
      SweepPoint("reps-lite N=1024", Map("mode" -> "reps-lite")),
      SweepPoint("ops N=1024", Map("mode" -> "ops"))),
    lintVariants = Seq(
      LintVariant("reps-lite", Map("mode" -> "reps-lite"), "the REPS-lite mode"),
      LintVariant("reps-ops", Map("mode" -> "ops"), "the oblivious packet spraying mode"))) {
    def config(values: ParamValues): RepsConfig = RepsConfig.fromParams(values)
    def build(cfg: RepsConfig) = new Reps(cfg)
    def factsOf(cfg: RepsConfig): Map[String, String] = Map(
      "stateBitsPerConnection" -> cfg.stateBitsPerConnection.toString,
      "paperStateBitsPerConnection" -> (if (cfg.mode == RepsMode.Reps) "193" else "-"),
      "ramBitsPerConnection" -> cfg.ramBitsPerConnection.toString,
      "latencyCycles" -> Reps.latency.toString)
  }

  val dartDft: BlockSpec = new ConfiguredBlock[DartDftConfig]("dart-dft",
    "Dart in-order flow deflection (switch): deflected flow table CAM and deflection decision", DartDftConfig.params,
    docPage = "dart-cam.md",
    sweep = Seq( // LUT and FF at E = 8, 16, 32, 64
      SweepPoint("dart-dft E=8 (default)"),
      SweepPoint("dart-dft E=16", Map("entries" -> "16")),
      SweepPoint("dart-dft E=32", Map("entries" -> "32")),
      SweepPoint("dart-dft E=64", Map("entries" -> "64"))),
    lintVariants = Seq(LintVariant("dart-p48-e64", Map("ports" -> "48", "entries" -> "64", "flow-id-width" -> "64"),
      "a non-power-of-two port count above 32 (the *_HI mask CSRs), the largest table and flow id"))) {
    def config(values: ParamValues): DartDftConfig = DartDftConfig.fromParams(values)
    def build(cfg: DartDftConfig) = new DartDft(cfg)
    def factsOf(cfg: DartDftConfig): Map[String, String] = Map(
      "entries" -> cfg.entries.toString,
      "entryBits" -> cfg.entryBits.toString,
      "tableBits" -> (cfg.entries * cfg.entryBits).toString,
      "latencyCycles" -> DartDft.latency.toString)
  }

  val dartDasr: BlockSpec = new ConfiguredBlock[DartDasrConfig]("dart-dasr",
    "Dart DASR (receiver NIC): active unique sender set with soft state and look-ahead, congestion state machine, n per ACK",
    DartDasrConfig.params,
    docPage = "dart-dasr.md",
    sweep = Seq(
      SweepPoint("dart-dasr S=256 (default)"),
      SweepPoint("dart-dasr S=4096", Map("capacity" -> "4096")),
      SweepPoint("dart-dasr S=256, 12-bit ids", Map("sender-id-bits" -> "12")))) {
    def config(values: ParamValues): DartDasrConfig = DartDasrConfig.fromParams(values)
    def build(cfg: DartDasrConfig) = new DartDasr(cfg)
    def factsOf(cfg: DartDasrConfig): Map[String, String] = Map(
      "capacity" -> cfg.capacity.toString,
      "stateBitsPerConnection" -> cfg.slotStateBits.toString,
      "paperStateBitsPerConnection" -> "-",
      "senderTableBits" -> cfg.indexBits.toString,
      "latencyCycles" -> DartDasr.latency.toString)
  }

  val dasrLimiter: BlockSpec = new ConfiguredBlock[DasrLimiterConfig]("dasr-limiter",
    "DASR sender-side pacer (NIC): per flow line rate / n from the n its ACKs carry, beside the congestion window",
    DasrLimiterConfig.params,
    docPage = "dasr-limiter.md",
    sweep = Seq(SweepPoint("dasr-limiter (default)"))) {
    def config(values: ParamValues): DasrLimiterConfig = DasrLimiterConfig.fromParams(values)
    def build(cfg: DasrLimiterConfig) = new DasrLimiter(cfg)
    def factsOf(cfg: DasrLimiterConfig): Map[String, String] = Map(
      "stateBitsPerConnection" -> cfg.stateBitsPerFlow.toString,
      "paperStateBitsPerConnection" -> "-",
      "latencyCycles" -> DasrLimiter.latency.toString)
  }

  val smartt: BlockSpec = new ConfiguredBlock[SmarttConfig]("smartt",
    "SMaRTT congestion-window unit (NIC): per-ACK window update with QuickAdapt, FastIncrease and Wait-to-Decrease",
    SmarttConfig.params,
    docPage = "smartt.md",
    sweep = Seq(
      SweepPoint("smartt N=256", Map("flows" -> "256")),
      SweepPoint("smartt N=1024 (default)"),
      SweepPoint("smartt N=4096", Map("flows" -> "4096"), inReports = true), // issue 30's bar names N = 4096
      SweepPoint("smartt N=1024, 2048-entry reciprocal", Map("recip-index-bits" -> "11"))),
    lintVariants = Seq(LintVariant("smartt-narrow", Map("flows" -> "100", "flow-id-width" -> "8", "byte-width" -> "18",
      "rtt-width" -> "16", "time-width" -> "16", "recip-index-bits" -> "6", "recip-value-bits" -> "8", "mtu" -> "1500",
      "link-gbps" -> "10", "base-rtt-ns" -> "20000"), "N not a power of two, the narrowest widths and tables"))) {
    def config(values: ParamValues): SmarttConfig = SmarttConfig.fromParams(values)
    def build(cfg: SmarttConfig) = new Smartt(cfg)
    def factsOf(cfg: SmarttConfig): Map[String, String] = Map(
      "stateBitsPerConnection" -> cfg.stateBitsPerFlow.toString,
      "paperStateBitsPerConnection" -> "152",
      "referenceProfileStateBitsPerConnection" -> cfg.referenceWindowBitsPerFlow.toString,
      "bdpBytes" -> cfg.bdp.toString,
      "gamma" -> f"${cfg.gamma}%.4f",
      "latencyCycles" -> Smartt.latency.toString,
      "sameFlowSpacingCycles" -> cfg.sameFlowSpacing.toString)
  }

  val swift: BlockSpec = new ConfiguredBlock[SwiftConfig]("swift",
    "Swift congestion-window unit (NIC): delay-based AIMD with fabric and endpoint windows, flow and topology scaling, pacing below one packet",
    SwiftConfig.params,
    docPage = "swift.md",
    sweep = Seq(
      SweepPoint("swift N=1024 (default)"),
      SweepPoint("swift N=4096", Map("flows" -> "4096"), inReports = true)),
    lintVariants = Seq(LintVariant("swift-narrow", Map("flows" -> "100", "flow-id-width" -> "8", "delay-width" -> "16"),
      "N not a power of two behind narrow ids, the narrowest delays"))) {
    def config(values: ParamValues): SwiftConfig = SwiftConfig.fromParams(values)
    def build(cfg: SwiftConfig) = new Swift(cfg)
    def factsOf(cfg: SwiftConfig): Map[String, String] = Map(
      "stateBitsPerConnection" -> cfg.stateBitsPerFlow.toString,
      "paperStateBitsPerConnection" -> "-",
      "latencyCycles" -> Swift.latency.toString,
      "sameFlowSpacingCycles" -> Swift.sameFlowSpacing.toString)
  }

  val nscc: BlockSpec = new ConfiguredBlock[NsccConfig]("nscc",
    "NSCC congestion-window unit (NIC): Ultra Ethernet's sender congestion control as the UEC reference simulator runs it",
    NsccConfig.params,
    docPage = "nscc.md",
    sweep = Seq(
      SweepPoint("nscc N=1024 (default)"),
      SweepPoint("nscc N=4096", Map("flows" -> "4096"))),
    lintVariants = Seq(LintVariant("nscc-narrow", Map("flows" -> "100", "flow-id-width" -> "8", "link-gbps" -> "800"),
      "N not a power of two behind narrow ids, the 800 Gb/s derivation"))) {
    def config(values: ParamValues): NsccConfig = NsccConfig.fromParams(values)
    def build(cfg: NsccConfig) = new Nscc(cfg)
    def factsOf(cfg: NsccConfig): Map[String, String] = Map(
      "stateBitsPerConnection" -> cfg.stateBitsPerFlow.toString,
      "paperStateBitsPerConnection" -> "-",
      "latencyCycles" -> Nscc.latency.toString,
      "sameFlowSpacingCycles" -> Nscc.sameFlowSpacing.toString)
  }

  val rcccPacer: BlockSpec = new ConfiguredBlock[RcccPacerConfig]("rccc-pacer",
    "RCCC receiver pull pacer (NIC): per connection pull targets and pulls, active and idle lists, PULLs at the configured rate",
    RcccPacerConfig.params,
    docPage = "rccc.md",
    sweep = Seq(
      SweepPoint("rccc-pacer N=1024 (default)"),
      SweepPoint("rccc-pacer N=4096", Map("connections" -> "4096"), inReports = true),
      SweepPoint("rccc-pacer N=1024 oversubscribed-cc", Map("oversubscribed-cc" -> "true"), inReports = true)),
    lintVariants = Seq(LintVariant("rccc-pacer-narrow", Map("connections" -> "100", "conn-id-width" -> "8"),
      "N not a power of two behind narrow ids"),
      LintVariant("rccc-pacer-occ", Map("oversubscribed-cc" -> "true"), "the oversubscription controller"))) {
    def config(values: ParamValues): RcccPacerConfig = RcccPacerConfig.fromParams(values)
    def build(cfg: RcccPacerConfig) = new RcccPacer(cfg)
    def factsOf(cfg: RcccPacerConfig): Map[String, String] = Map(
      "stateBitsPerConnection" -> cfg.stateBitsPerConnection.toString,
      "paperStateBitsPerConnection" -> "-",
      "latencyCycles" -> RcccPacer.pullLatency.toString,
      "engineCycles" -> RcccPacer.engineClocks.toString)
  }

  val trimQueue: BlockSpec = new ConfiguredBlock[TrimQueueConfig]("trim-queue",
    "Trimming egress queue (switch): strict-priority control queue, trim-on-overflow, RED/ECN marking at dequeue, AXI4-Stream",
    TrimQueueConfig.params,
    docPage = "trimming-queue.md",
    sweep = Seq(
      SweepPoint("trim-queue 64-bit", Map("data-bytes" -> "8")),
      SweepPoint("trim-queue 128-bit", Map("data-bytes" -> "16")),
      SweepPoint("trim-queue 256-bit", Map("data-bytes" -> "32")),
      SweepPoint("trim-queue 512-bit (default)")),
    lintVariants = Seq(LintVariant("trim-queue-64bit", Map("data-bytes" -> "8", "capacity-bytes" -> "32768",
      "control-bytes" -> "4096", "trim-bytes" -> "96"), "the narrowest bus (64 bits), IPv6-length trims, small queues"))) {
    def config(values: ParamValues): TrimQueueConfig = TrimQueueConfig.fromParams(values)
    def build(cfg: TrimQueueConfig) = new TrimQueue(cfg)
    def factsOf(cfg: TrimQueueConfig): Map[String, String] = Map(
      "dataRamBeats" -> cfg.dataRamBeats.toString,
      "controlRamBeats" -> cfg.controlRamBeats.toString,
      "dataDescriptors" -> cfg.dataDescriptors.toString,
      "headerBytes" -> cfg.headerBytes.toString,
      "keptBytesIpv4" -> cfg.trimBytes.toString,
      "keptBytesIpv6" -> cfg.keptMax.toString)
  }

  val nicCc: BlockSpec = new ConfiguredBlock[NicCcConfig]("nic-cc",
    "NIC congestion-management engine: control frames (ACK, NACK, PULL) in, per-flow grants out, the window law behind one interface",
    NicCcConfig.params,
    docPage = "nic-engine.md",
    sweep = Seq(SweepPoint("nic-cc N=1024 nscc (default)"), SweepPoint("nic-cc N=1024 nscc, pacing dasr", Map("pacing" -> "dasr"))),
    lintVariants = Seq(LintVariant("nic-cc-narrow", Map("data-bytes" -> "8", "flows" -> "96", "credit" -> "true"),
      "the narrowest bus (64 bits), N not a power of two, credit on"),
      LintVariant("nic-cc-smartt", Map("law" -> "smartt"), "SMaRTT as the law"),
      LintVariant("nic-cc-swift", Map("law" -> "swift", "flows" -> "96"), "Swift as the law (its acked and window multiplies), N not a power of two"),
      LintVariant("nic-cc-reps", Map("lb" -> "reps"), "REPS gives each grant its entropy (a third and fourth map quarter)"),
      LintVariant("nic-cc-ops", Map("lb" -> "ops", "law" -> "swift", "flows" -> "96"), "REPS in mode ops: no echoed entropy kept"),
      LintVariant("nic-cc-4096", Map("flows" -> "4096", "lb" -> "reps"), "the most flows (the picker's 128 words) with REPS"),
      LintVariant("nic-cc-dasr", Map("pacing" -> "dasr", "credit" -> "true", "flows" -> "96"), "DASR's pacing with credit, N not a power of two (the limiter's range check, FIFOs of 96)"),
      LintVariant("nic-cc-ends4", Map("message-ends" -> "4", "lb" -> "reps", "flows" -> "96"), "four message ends a flow (the ring's 2-bit slot), REPS, N not a power of two"),
      LintVariant("nic-cc-ends1", Map("message-ends" -> "1", "law" -> "swift"), "one message end a flow (no slot), Swift"),
      LintVariant("nic-cc-no-ends", Map("message-ends" -> "0"), "no message boundaries (the doorbell straight to the op merge)"))) {
    def config(values: ParamValues): NicCcConfig = NicCcConfig.fromParams(values)
    def build(cfg: NicCcConfig) = new NicCc(cfg)
    def factsOf(cfg: NicCcConfig): Map[String, String] = Map(
      // the flow state's counters (op port: queued, retired, resend, window and, with credit, credit;
      // grant path: granted, resent, sent, PSN), the ACK state (received, pulls) and with pacing the
      // limiter's n and next time and the paced and released toggles
      "stateBitsPerConnection" -> ((if (cfg.credit) 5 else 4) * 32 + 4 * 32 + 64 + (if (cfg.paced) cfg.dasr.stateBitsPerFlow + 2 else 0)).toString,
      "paperStateBitsPerConnection" -> "-",
      "lawStateBitsPerConnection" -> (cfg.law match {
        case "nscc" => cfg.nscc.stateBitsPerFlow
        case "smartt" => cfg.smartt.stateBitsPerFlow
        case _ => cfg.swift.stateBitsPerFlow
      }).toString)
  }

  val all: Seq[BlockSpec] = Seq(reps, dartDft, dartDasr, dasrLimiter, smartt, swift, nscc, rcccPacer, trimQueue, nicCc)
  def allJava: java.util.List[BlockSpec] = all.asJava
  def find(name: String): BlockSpec = all.find(_.name == name).orNull
}

case class BenchTop(module: String, ioBits: Int)

/** A 32-bit registered accumulator: the reference design every Fmax is divided by. */
class ReferenceAccumulator extends Component {
  val io = new ReferenceAccumulatorIo
  setDefinitionName("uehw_ref_acc32")
  private val acc = Reg(UInt(32 bits)) init (0)
  acc := acc + RegNext(io.value)
  io.sum := RegNext(acc)
}

class ReferenceAccumulatorIo extends Bundle {
  val value = in UInt (32 bits)
  val sum = out UInt (32 bits)
}

/** A 512-bit Stream through three register stages (m2sPipe, s2mPipe, m2sPipe): a NIC datapath's registers. */
class ReferencePipeline512 extends Component {
  setDefinitionName("uehw_ref_pipe512")
  val io = new Bundle {
    val input = slave(spinal.lib.Stream(Bits(512 bits)))
    val output = master(spinal.lib.Stream(Bits(512 bits)))
  }
  io.output << io.input.m2sPipe().s2mPipe().m2sPipe()
}

/** spinal.lib's StreamFifo, 512 entries of 32 bits (block RAM). */
class ReferenceStreamFifo extends Component {
  setDefinitionName("uehw_ref_fifo512x32")
  val io = new Bundle {
    val input = slave(spinal.lib.Stream(Bits(32 bits)))
    val output = master(spinal.lib.Stream(Bits(32 bits)))
  }
  io.output << io.input.queue(512)
}

/** Calibration: a registered 27x18 signed multiply (one DSP48E2, registers before and after). */
class ReferenceMultiply extends Component {
  setDefinitionName("uehw_ref_mul27x18")
  val io = new Bundle {
    val a = in SInt (27 bits)
    val b = in SInt (18 bits)
    val product = out SInt (45 bits)
  }
  io.product := RegNext(RegNext(io.a) * RegNext(io.b))
}

/** Calibration: a 1024 x 32 block RAM read into a register (no output register in the RAM). */
class ReferenceRamRead extends Component {
  setDefinitionName("uehw_ref_bram1kx32")
  val io = new Bundle {
    val write = slave(spinal.lib.Flow(new Bundle { val address = UInt(10 bits); val data = Bits(32 bits) }))
    val address = in UInt (10 bits)
    val data = out Bits (32 bits)
  }
  val ram = Mem(Bits(32 bits), 1024)
  ram.write(io.write.address, io.write.data, io.write.valid)
  io.data := RegNext(ram.readSync(io.address))
}

/** The reference designs every report measures in the same run, next to the blocks. */
object References {
  val all: Seq[(String, () => Component)] = Seq(
    "32-bit registered accumulator" -> (() => new ReferenceAccumulator),
    "512-bit Stream register pipeline (3 stages)" -> (() => new ReferencePipeline512),
    "spinal.lib StreamFifo 512 x 32 bits" -> (() => new ReferenceStreamFifo),
    "calibration: registered 27x18 multiply" -> (() => new ReferenceMultiply),
    "calibration: block RAM 1024 x 32, registered read" -> (() => new ReferenceRamRead))
  def labels: java.util.List[String] = all.map(_._1).asJava
  def top(label: String): Component = all.find(_._1 == label).map(_._2()).getOrElse(
    throw new IllegalArgumentException(s"no reference design '$label'"))
}

object Generator {
  /**
   * Verilog of a top wrapped for measurement into outDir/<name>.v: "ffio" registers every port
   * (spinal.lib.eda.bench.Rtl.ffIo), "pins" also feeds the inputs from one shift chain and
   * XORs the outputs to one pin (Rtl.compactInputs / xorOutputs) so it fits a small FPGA.
   * Returns the top module name and the block's I/O bits (clock excluded).
   */
  def benchVerilog(top: java.util.function.Supplier[Component], wrap: String, outDir: File, name: String): BenchTop = {
    import spinal.lib.eda.bench.Rtl
    var ioBits = 0
    val report = spinalConfig(outDir).copy(netlistFileName = name + ".v").generateVerilog {
      val c = top.get()
      ioBits = c.getAllIo.toSeq.filter(_.getName() != "clk").map(_.getBitsWidth).sum
      wrap match {
        case "ffio" => Rtl.ffIo(c)
        case "pins" => Rtl.compactInputs(Rtl.xorOutputs(Rtl.ffIo(c)))
        case other => throw new IllegalArgumentException(s"unknown bench wrapper '$other'")
      }
    }
    BenchTop(report.toplevel.definitionName, ioBits)
  }

  def spinalConfig(outDir: File): SpinalConfig = SpinalConfig(
    targetDirectory = outDir.getPath,
    defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC),
    oneFilePerComponent = false,
    headerWithDate = false,
    headerWithRepoHash = false,
    // The generated Verilog is under the project's license (LICENSE at the repository's root).
    rtlHeader = s"SPDX-License-Identifier: Apache-2.0\nGenerated by uehw ${uehw.hw.common.BlockVersion.text}, " +
      s"commit ${uehw.hw.common.BlockVersion.commit} (https://www.apache.org/licenses/LICENSE-2.0)")

  /**
   * A block's generation: files named `fileBase`.*, every module other than the top named the top's
   * name, '_' and its own (so that any set of blocks and sizes shares one design), ROM contents
   * inline unless `romFiles` (then `$readmemb` files named after the top's module).
   */
  def blockConfig(outDir: File, fileBase: String, romFiles: Boolean, parametersSha256: String): SpinalConfig = {
    val c = spinalConfig(outDir)
    c.copy(netlistFileName = fileBase + ".v", privateNamespace = true, inlineRom = !romFiles,
      rtlHeader = c.rtlHeader + s"\nParameters SHA-256 $parametersSha256 (the manifest's parametersSha256)")
  }

  private val Identifier = "[A-Za-z_][A-Za-z0-9_]{0,62}".r

  /** The reserved words of Verilog-2005 and SystemVerilog (IEEE 1800-2017 Annex B): no module may be named one. */
  val reservedWords: Set[String] = ("""accept_on alias always always_comb always_ff always_latch and assert assign assume
    automatic before begin bind bins binsof bit break buf bufif0 bufif1 byte case casex casez cell chandle checker class
    clocking cmos config const constraint context continue cover covergroup coverpoint cross deassign default defparam
    design disable dist do edge else end endcase endchecker endclass endclocking endconfig endfunction endgenerate endgroup
    endinterface endmodule endpackage endprimitive endprogram endproperty endspecify endsequence endtable endtask enum
    event eventually expect export extends extern final first_match for force foreach forever fork forkjoin function
    generate genvar global highz0 highz1 if iff ifnone ignore_bins illegal_bins implements implies import incdir include
    initial inout input inside instance int integer interconnect interface intersect join join_any join_none large let
    liblist library local localparam logic longint macromodule matches medium modport module nand negedge nettype new
    nexttime nmos nor noshowcancelled not notif0 notif1 null or output package packed parameter pmos posedge primitive
    priority program property protected pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent pure rand randc
    randcase randsequence rcmos real realtime ref reg reject_on release repeat restrict return rnmos rpmos rtran rtranif0
    rtranif1 s_always s_eventually s_nexttime s_until s_until_with scalared sequence shortint shortreal showcancelled
    signed small soft solve specify specparam static string strong strong0 strong1 struct super supply0 supply1
    sync_accept_on sync_reject_on table tagged task this throughout time timeprecision timeunit tran tranif0 tranif1 tri
    tri0 tri1 triand trior trireg type typedef union unique unique0 unsigned until until_with untyped use uwire var
    vectored virtual void wait wait_order wand weak weak0 weak1 while wildcard wire with within wor xnor xor""")
    .split("\\s+").filter(_.nonEmpty).toSet

  /** A user's prefix: a Verilog identifier of at most 63 characters, not a reserved word, or a ParameterException naming 'prefix'. */
  def checkPrefix(prefix: String): String = prefix match {
    case Identifier() if !reservedWords(prefix) => prefix
    case _ => throw new ParameterException("prefix", s"parameter 'prefix' = '$prefix' is not allowed: " +
      "must be a Verilog identifier (a letter or '_', then letters, digits or '_'), at most 63 characters, not a " +
      "Verilog or SystemVerilog reserved word")
  }

  /** SHA-256 (hex) of the block's name and every parameter value, defaults included, sorted by name. */
  def parametersSha256(block: String, values: ParamValues): String = {
    val text = values.values.toSeq.sortBy(_._1).map { case (k, v) => s"$k=$v" }.mkString(block + "\n", "\n", "\n")
    java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes("UTF-8")).map(b => f"${b & 0xff}%02x").mkString
  }

  def describe[T <: Component](report: SpinalReport[T], outDir: File, fileBase: String, facts: Map[String, String]): Generated = {
    val top = report.toplevel
    val ports = top.getAllIo.toSeq.map { p =>
      PortInfo(p.getName(), if (p.isInput) "input" else "output", p.getBitsWidth)
    }
    Generated(top.definitionName, fileBase, new File(outDir, fileBase + ".v"), ports.asJava,
      new java.util.TreeMap[String, String](facts.asJava))
  }
}
