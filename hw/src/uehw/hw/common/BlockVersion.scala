// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib.bus.regif._

/**
 * Every block identifies itself the same way (docs/integration.md): INFO at 0x00 holds the block's
 * id letter in bits 7:0, and VERSION at 0xFC the version of the generator that made it, the same
 * version the manifest's `generatorVersion` gives (from `uehw-version.properties` on the class path).
 */
object BlockVersion {
  val address = 0xFC

  private lazy val properties: java.util.Properties = {
    val in = getClass.getResourceAsStream("/uehw-version.properties")
    require(in != null, "uehw-version.properties is not on the class path: the generator version is unknown")
    try {
      val p = new java.util.Properties()
      p.load(in)
      p
    } finally in.close()
  }

  /** "major.minor.patch" of the project. */
  lazy val text: String = properties.getProperty("version", "")

  /**
   * The generator's own commit, baked in when it was built (pom.xml: git-commit-id-maven-plugin),
   * with "-dirty" when its tracked files differed from that commit; "unknown" when it was built
   * outside a git work tree. Never the commit of the directory it runs in.
   */
  lazy val commit: String = {
    val hash = properties.getProperty("commit", "")
    if (!hash.matches("[0-9a-f]{40}")) "unknown"
    else if (properties.getProperty("dirty", "false") == "true") hash + "-dirty"
    else hash
  }

  /** (major, minor, patch), each 0..255. */
  lazy val parts: (Int, Int, Int) = {
    val Pattern = """(\d+)\.(\d+)\.(\d+).*""".r
    text match {
      case Pattern(a, b, c) if Seq(a, b, c).forall(_.toInt < 256) => (a.toInt, b.toInt, c.toInt)
      case _ => throw new IllegalArgumentException(s"generator version '$text' is not major.minor.patch with parts below 256")
    }
  }

  /** The register value: bits 23:16 major, 15:8 minor, 7:0 patch. */
  def word: Long = (parts._1 << 16 | parts._2 << 8 | parts._3).toLong

  def addRegister(busif: BusIf): Unit = {
    val r = busif.newRegAt(address, doc = "Generator version (read-only), as the manifest's generatorVersion")(SymbolName("VERSION"))
    RegisterDocs.constField(r, Bits(8 bits), BigInt(parts._3), "Patch", "PATCH")
    RegisterDocs.constField(r, Bits(8 bits), BigInt(parts._2), "Minor", "MINOR")
    RegisterDocs.constField(r, Bits(8 bits), BigInt(parts._1), "Major", "MAJOR")
  }
}
