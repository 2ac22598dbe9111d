# freeze.tcl: the eifel-response path in the patched ns-2.35 (tools/ns2), frozen by its
# `freeze-link`. A minimal hand-written fixture of tests/ns2_freeze.rs, kept apart from
# any general exporter on purpose.
#
# usage: ns freeze.tcl AGENT CBR SCHEDULE BEFORE_QUEUE HOLDS_WIRE DROPS_ARRIVALS NPKTS TRACE
#   AGENT           Reno | Sack1 (one-way agents; sinks TCPSink/DelAck, TCPSink/Sack1/DelAck)
#   CBR             1: add a 1 Mbit/s CBR flow of 1000-byte packets on the same link
#   SCHEDULE        flat list of freeze (start duration) pairs in seconds, e.g. "5 6 25 4"
#   BEFORE_QUEUE, HOLDS_WIRE, DROPS_ARRIVALS   the DelayLink freeze switches (0/1)
#   NPKTS           packets the FTP source sends
#   TRACE           file for the link trace of both directions (+ - r d lines)
#
# Prints one line: "done COMPLETION NREXMITPACK NREXMIT NDATAPACK", or "unfinished ..."
# when the transfer has not completed by 600 s. NREXMIT counts retransmission timeouts
# (every expiry), NREXMITPACK retransmitted packets.

lassign $argv agent cbr schedule before holds drops npkts tracefile

switch -- $agent {
    Reno  { set tcpclass Agent/TCP/Reno  ; set sinkclass Agent/TCPSink/DelAck }
    Sack1 { set tcpclass Agent/TCP/Sack1 ; set sinkclass Agent/TCPSink/Sack1/DelAck }
    default { puts stderr "unknown agent $agent" ; exit 2 }
}

# The sink echoes the newest TSval (2002: ts_echo_bugfix_ false); ACK every 2nd
# packet with a 100 ms timer; 3 SACK blocks.
Agent/TCPSink set ts_echo_bugfix_ false
Agent/TCPSink/DelAck set interval_ 100ms
Agent/TCPSink set maxSackBlocks_ 3

DelayLink set freezeBeforeQueue_ $before
DelayLink set freezeHoldsWire_ $holds
DelayLink set freezeDropsArrivals_ $drops

set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
# [Gurtov & Ludwig 2003] IV.A: 2 Mbit/s, 150 ms, Drop-Tail with 75 packets.
$ns duplex-link $n0 $n1 2Mb 150ms DropTail
$ns queue-limit $n0 $n1 75
$ns queue-limit $n1 $n0 75

set tf [open $tracefile w]
$ns trace-queue $n0 $n1 $tf
$ns trace-queue $n1 $n0 $tf

# The 2002 defaults of the one-way agents, set explicitly.
set tcp [new $tcpclass]
foreach {k v} {packetSize_ 1000 window_ 150 windowInit_ 2 syn_ true tcpTick_ 0.01
               minrto_ 1 maxrto_ 100000 rtxcur_init_ 6.0 rfc2988_ true
               timestamps_ true bugFix_ true singledup_ 1 maxburst_ 0 numdupacks_ 3
               newreno_changes1_ 0 partial_window_deflation_ 0 fid_ 1} {
    $tcp set $k $v
}
$ns attach-agent $n0 $tcp
set sink [new $sinkclass]
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

if {$cbr} {
    set udp [new Agent/UDP]
    $udp set fid_ 2
    $ns attach-agent $n0 $udp
    set null [new Agent/Null]
    $ns attach-agent $n1 $null
    $ns connect $udp $null
    set src [new Application/Traffic/CBR]
    $src set packetSize_ 1000
    $src set rate_ 1Mb
    $src set random_ 0
    $src attach-agent $udp
    $ns at 0.0 "$src start"
}

$ns freeze-link $n0 $n1 $schedule

proc finish {word} {
    global ns tcp tf
    flush $tf
    close $tf
    puts "$word [$ns now] [$tcp set nrexmitpack_] [$tcp set nrexmit_] [$tcp set ndatapack_]"
    exit 0
}

# Completion: the agent calls `done` when the last packet is acknowledged
# (TcpAgent::finish, from recv_newack_helper).
$tcp proc done {} { finish done }

$ns at 0.0 "$ftp produce $npkts"
$ns at 600.0 "finish unfinished"
$ns run
