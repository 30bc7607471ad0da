package uehw.hw

import java.io.File
import scala.jdk.CollectionConverters._

import spinal.core._
import uehw.hw.common._
import uehw.hw.reps._

/** A port of a generated top, for the manifest. */
case class PortInfo(name: String, direction: String, width: Int)

/** What one generation wrote. */
case class Generated(topModule: String, verilog: File, ports: java.util.List[PortInfo],
                     facts: java.util.Map[String, String])

/** A block the generator knows: its parameters and how to elaborate it. */
trait BlockSpec {
  def name: String
  def description: String
  def params: Seq[ParamSpec]
  def paramsJava: java.util.List[ParamSpec] = params.asJava
  /** Checks every value; throws ParameterException naming the first bad parameter. */
  def check(values: java.util.Map[String, String]): ParamValues
  /** Emits Verilog (and register docs) into outDir. */
  def generate(values: ParamValues, outDir: File): Generated
  /** A fresh instance of the block's top, for benches. */
  def top(values: ParamValues): Component
  /** Facts for reports, e.g. state bits per connection against the paper. */
  def facts(values: ParamValues): java.util.Map[String, String]
}

object Blocks {
  val reps: BlockSpec = new BlockSpec {
    val name = "reps"
    val description = "REPS entropy cache (NIC send path): recycled-entropy load balancer, modes reps / reps-lite / ops"
    val params: Seq[ParamSpec] = RepsConfig.params
    def check(values: java.util.Map[String, String]): ParamValues = {
      val v = new ParamValues(params, values.asScala.toMap)
      RepsConfig.fromParams(v) // cross-parameter checks
      v
    }
    def top(values: ParamValues): Component = new Reps(RepsConfig.fromParams(values))
    def facts(values: ParamValues): java.util.Map[String, String] = {
      val cfg = RepsConfig.fromParams(values)
      new java.util.TreeMap[String, String](Map(
        "stateBitsPerConnection" -> cfg.stateBitsPerConnection.toString,
        "paperStateBitsPerConnection" -> (if (cfg.mode == RepsMode.Reps) "193" else "-"),
        "ramBitsPerConnection" -> cfg.ramBitsPerConnection.toString,
        "latencyCycles" -> Reps.latency.toString).asJava)
    }
    def generate(values: ParamValues, outDir: File): Generated = {
      val report = Generator.spinalConfig(outDir).generateVerilog {
        val t = new Reps(RepsConfig.fromParams(values))
        t.emitRegisterDocs()
        t
      }
      Generator.describe(report, outDir, facts(values).asScala.toMap)
    }
  }

  val all: Seq[BlockSpec] = Seq(reps)
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
    headerWithRepoHash = false)

  def describe[T <: Component](report: SpinalReport[T], outDir: File, facts: Map[String, String]): Generated = {
    val top = report.toplevel
    val ports = top.getAllIo.toSeq.map { p =>
      PortInfo(p.getName(), if (p.isInput) "input" else "output", p.getBitsWidth)
    }
    Generated(top.definitionName, new File(outDir, top.definitionName + ".v"), ports.asJava,
      new java.util.TreeMap[String, String](facts.asJava))
  }
}
