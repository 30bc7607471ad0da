// SPDX-License-Identifier: Apache-2.0
// A plain-Verilog shell around the generated NIC engine (docs/nic-engine.md, "Integration example").
// The engine is generated with
//   hwgen generate nic-cc --flows 64 --prefix nic_cc_core --out <dir>
// and this shell gives it what a NIC around it gives: the time in ns for io_now (here a counter of
// 4 ns a clock, a 250 MHz clock; a NIC would use its PTP clock). Every other port passes through.
`timescale 1ns/1ps

module nic_cc_shell (
  input  wire         clk,
  input  wire         reset,
  // control frames from the MAC (no tready: the engine takes a beat every clock)
  input  wire         s_axis_tvalid,
  input  wire [511:0] s_axis_tdata,
  input  wire [63:0]  s_axis_tkeep,
  input  wire         s_axis_tlast,
  input  wire [63:0]  s_axis_tuser,
  // doorbells from the host queues
  input  wire         io_doorbell_valid,
  output wire         io_doorbell_ready,
  input  wire [15:0]  io_doorbell_payload_flow,
  input  wire [31:0]  io_doorbell_payload_bytes,
  input  wire         io_doorbell_payload_start,
  input  wire         io_doorbell_payload_last,
  // grants to the transmit engine
  output wire         io_grant_valid,
  input  wire         io_grant_ready,
  output wire [5:0]   io_grant_payload_flow,
  output wire [31:0]  io_grant_payload_psn,
  output wire [15:0]  io_grant_payload_bytes,
  output wire         io_grant_payload_resend,
  output wire         io_grant_payload_last,
  // retransmit requests to the transport
  output wire         io_retransmit_valid,
  output wire [5:0]   io_retransmit_payload_flow,
  output wire [31:0]  io_retransmit_payload_psn,
  output wire         io_retransmit_payload_timeout,
  // the registers (the engine's at 0x000, the law's at 0x100)
  input  wire         ctrl_awvalid,
  output wire         ctrl_awready,
  input  wire [8:0]   ctrl_awaddr,
  input  wire [2:0]   ctrl_awprot,
  input  wire         ctrl_wvalid,
  output wire         ctrl_wready,
  input  wire [31:0]  ctrl_wdata,
  input  wire [3:0]   ctrl_wstrb,
  output wire         ctrl_bvalid,
  input  wire         ctrl_bready,
  output wire [1:0]   ctrl_bresp,
  input  wire         ctrl_arvalid,
  output wire         ctrl_arready,
  input  wire [8:0]   ctrl_araddr,
  input  wire [2:0]   ctrl_arprot,
  output wire         ctrl_rvalid,
  input  wire         ctrl_rready,
  output wire [31:0]  ctrl_rdata,
  output wire [1:0]   ctrl_rresp,
  output wire         io_initDone
);
  reg [31:0] now_ns;
  always @(posedge clk) now_ns <= reset ? 32'd0 : now_ns + 32'd4;

  nic_cc_core engine (
    .clk(clk), .reset(reset),
    .s_axis_tvalid(s_axis_tvalid), .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
    .io_doorbell_valid(io_doorbell_valid), .io_doorbell_ready(io_doorbell_ready),
    .io_doorbell_payload_flow(io_doorbell_payload_flow), .io_doorbell_payload_bytes(io_doorbell_payload_bytes),
    .io_doorbell_payload_start(io_doorbell_payload_start), .io_doorbell_payload_last(io_doorbell_payload_last),
    .io_grant_valid(io_grant_valid), .io_grant_ready(io_grant_ready),
    .io_grant_payload_flow(io_grant_payload_flow), .io_grant_payload_psn(io_grant_payload_psn),
    .io_grant_payload_bytes(io_grant_payload_bytes), .io_grant_payload_resend(io_grant_payload_resend),
    .io_grant_payload_last(io_grant_payload_last),
    .io_retransmit_valid(io_retransmit_valid), .io_retransmit_payload_flow(io_retransmit_payload_flow),
    .io_retransmit_payload_psn(io_retransmit_payload_psn), .io_retransmit_payload_timeout(io_retransmit_payload_timeout),
    .io_now(now_ns),
    .ctrl_awvalid(ctrl_awvalid), .ctrl_awready(ctrl_awready), .ctrl_awaddr(ctrl_awaddr), .ctrl_awprot(ctrl_awprot),
    .ctrl_wvalid(ctrl_wvalid), .ctrl_wready(ctrl_wready), .ctrl_wdata(ctrl_wdata), .ctrl_wstrb(ctrl_wstrb),
    .ctrl_bvalid(ctrl_bvalid), .ctrl_bready(ctrl_bready), .ctrl_bresp(ctrl_bresp),
    .ctrl_arvalid(ctrl_arvalid), .ctrl_arready(ctrl_arready), .ctrl_araddr(ctrl_araddr), .ctrl_arprot(ctrl_arprot),
    .ctrl_rvalid(ctrl_rvalid), .ctrl_rready(ctrl_rready), .ctrl_rdata(ctrl_rdata), .ctrl_rresp(ctrl_rresp),
    .io_initDone(io_initDone)
  );
endmodule
