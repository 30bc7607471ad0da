// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import scala.jdk.CollectionConverters._

/** Thrown for a bad generator parameter; the message names the parameter and its allowed range. */
class ParameterException(val parameter: String, message: String) extends IllegalArgumentException(message)

/**
 * One generator parameter: its name on the command line, default, range and meaning. `rangeText`
 * replaces "min..max" in help and errors when the real bound depends on another parameter
 * (min/max stay the absolute bounds checked here; the block's config checks the rest).
 */
case class ParamSpec(name: String, defaultValue: String, description: String,
                     min: Long = 0, max: Long = 0, choices: Seq[String] = Nil,
                     powerOfTwo: Boolean = false, rangeText: String = "") {
  def isChoice: Boolean = choices.nonEmpty
  def allowed: String =
    if (isChoice) choices.mkString("one of {", ", ", "}")
    else (if (rangeText.nonEmpty) rangeText else s"$min..$max") + (if (powerOfTwo) " (a power of two)" else "")
  def choicesJava: java.util.List[String] = choices.asJava

  /** Parses and range-checks a value, or throws a ParameterException naming this parameter. */
  def check(raw: String): String = {
    def bad = throw new ParameterException(name, s"parameter '$name' = '$raw' is not allowed: must be $allowed")
    if (isChoice) { if (!choices.contains(raw)) bad; raw }
    else {
      val v = try java.lang.Long.decode(raw.trim).longValue() catch { case _: NumberFormatException => bad }
      if (v < min || v > max || (powerOfTwo && (v & (v - 1)) != 0)) bad
      v.toString
    }
  }
}

/** Checked parameter values of one block, with typed accessors for the config builders. */
class ParamValues(specs: Seq[ParamSpec], given: Map[String, String]) {
  private val known = specs.map(_.name).toSet
  for (k <- given.keys if !known(k))
    throw new ParameterException(k, s"unknown parameter '$k': known parameters are ${specs.map(_.name).mkString(", ")}")
  val values: Map[String, String] = specs.map(s => s.name -> s.check(given.getOrElse(s.name, s.defaultValue))).toMap
  def int(name: String): Int = values(name).toInt
  def long(name: String): Long = values(name).toLong
  def string(name: String): String = values(name)
  def asJava: java.util.Map[String, String] = new java.util.TreeMap[String, String](values.asJava)
}

/** A cross-parameter rule: like `require`, but the failure names the parameter. */
object ParamCheck {
  def apply(cond: Boolean, parameter: String, message: => String): Unit =
    if (!cond) throw new ParameterException(parameter, s"parameter '$parameter': $message")
}
