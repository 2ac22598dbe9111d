# A CBR train at twice the bottleneck's rate (ns2_same_instant.rs): 1000-byte UDP
# packets every 4 ms over a 2 Mbit/s, 10 ms link into a 1 Mbit/s, 50 ms one.
# argv: the bottleneck's queue limit (ns-2 packets), the trace file.
set ns [new Simulator]
set tf [open [lindex $argv 1] w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 2Mb 10ms DropTail
$ns duplex-link $n1 $n2 1Mb 50ms DropTail
$ns queue-limit $n0 $n1 1000
$ns queue-limit $n1 $n2 [lindex $argv 0]
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set sink [new Agent/Null]
$ns attach-agent $n2 $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 1000
$cbr set rate_ 2Mb
$cbr set random_ 0
$cbr attach-agent $udp
$ns at 0.0 "$cbr start"
$ns at 0.1 "$cbr stop"
$ns at 1.0 "close $tf; exit 0"
$ns run
