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
    def generate(values: ParamValues, outDir: File): Generated = {
      val cfg = RepsConfig.fromParams(values)
      val report = Generator.spinalConfig(outDir).generateVerilog {
        val top = new Reps(cfg)
        top.emitRegisterDocs()
        top
      }
      Generator.describe(report, outDir, Map(
        "stateBitsPerConnection" -> cfg.stateBitsPerConnection.toString,
        "ramBitsPerConnection" -> cfg.ramBitsPerConnection.toString,
        "latencyCycles" -> Reps.latency.toString))
    }
  }

  val all: Seq[BlockSpec] = Seq(reps)
  def allJava: java.util.List[BlockSpec] = all.asJava
  def find(name: String): BlockSpec = all.find(_.name == name).orNull
}

object Generator {
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
