//! `ip`, `bridge`, `tc`.
use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::verdict::{Inner, Verdict};

#[test]
fn ip_reads() {
    for line in [
        "ip a",
        "ip addr",
        "ip a s",
        "ip addr show dev eth0",
        "ip -4 addr show",
        "ip -6 a",
        "ip -br a",
        "ip -br -c addr",
        "ip -c a",
        "ip -color=always a",
        "ip -j -p addr show",
        "ip --json addr",
        "ip -s -s link",
        "ip -d link show eth0",
        "ip -o -4 addr list",
        "ip r",
        "ip ro",
        "ip ro sh",
        "ip route show table all",
        "ip route get 1.1.1.1",
        "ip r g 8.8.8.8",
        "ip -4 route show",
        "ip -6 r",
        "ip rule",
        "ip rule list",
        "ip ru s",
        "ip neigh",
        "ip neighbor show",
        "ip neighbour show dev eth0",
        "ip n",
        "ip link",
        "ip l",
        "ip link sh",
        "ip link show type bridge",
        "ip l l",
        "ip link xstats type bridge",
        "ip tunnel show",
        "ip maddr",
        "ip mroute show",
        "ip netns",
        "ip netns list",
        "ip netns identify 1234",
        "ip -n blue addr",
        "ip -netns blue route",
        "ip ntable show",
        "ip xfrm state",
        "ip xfrm policy list",
        "ip xfrm state count",
        "ip tcp_metrics",
        "ip token",
        "ip netconf",
        "ip vrf show",
        "ip nexthop",
        "ip mptcp endpoint show",
        "ip stats show",
        "ip -V",
        "ip help",
        "ip -f inet addr show",
    ] {
        assert!(is_read(line), "{line}");
    }
}

#[test]
fn ip_writes() {
    for line in [
        "ip addr add 10.0.0.1/24 dev eth0",
        "ip a a 10.0.0.1/24 dev eth0",
        "ip a d 10.0.0.1/24 dev eth0",
        "ip addr del 10.0.0.1/24 dev eth0",
        "ip addr flush dev eth0",
        "ip a f dev eth0",
        "ip a sa",
        "ip route add default via 10.0.0.1",
        "ip r a default via 10.0.0.1",
        "ip r d default",
        "ip route replace default via 10.0.0.1",
        "ip route change default via 10.0.0.2",
        "ip route flush cache",
        "ip route append 10.0.0.0/8 dev eth0",
        "ip route restore",
        "ip route save",
        "ip l s eth0 up",
        "ip link set eth0 down",
        "ip link set dev eth0 mtu 9000",
        "ip link add br0 type bridge",
        "ip link del br0",
        "ip link property add dev eth0 altname x",
        "ip neigh flush all",
        "ip neigh add 10.0.0.2 lladdr aa:bb:cc:dd:ee:ff dev eth0",
        "ip rule add from 10.0.0.0/8 table 100",
        "ip rule del prio 100",
        "ip netns add blue",
        "ip netns delete blue",
        "ip netns set blue 1",
        "ip tunnel add gre1 mode gre",
        "ip xfrm state flush",
        "ip xfrm policy deleteall",
        "ip -b cmds.txt",
        "ip -batch cmds.txt",
        "ip -force -batch cmds.txt",
        "ip --bogus a",
        "ip frobnicate",
        "ip addr frob",
        "ip tuntap add tap0 mode tap",
        "ip mptcp endpoint add 10.0.0.1",
        "ip netns exec",
    ] {
        assert!(is_write(line), "{line}");
    }
}

#[test]
fn ip_streams_and_wrappers() {
    for line in [
        "ip monitor",
        "ip -ts monitor all",
        "ip mo",
        "ip netns monitor",
        "ip xfrm monitor",
    ] {
        assert!(is_interactive(line), "{line}");
    }
    let wrap = |line| match rule_verdict(line) {
        Verdict::Wrap(w) => match w.inner {
            Inner::Argv { start } => Some(start),
            _ => None,
        },
        _ => None,
    };
    assert_eq!(wrap("ip netns exec blue ip addr"), Some(3));
    assert_eq!(wrap("ip -all netns exec ip addr"), Some(3));
    assert_eq!(wrap("ip vrf exec red ping -c1 x"), Some(3));
}

#[test]
fn bridge_and_tc() {
    for line in [
        "bridge link",
        "bridge link show",
        "bridge fdb show br br0",
        "bridge -d vlan show",
        "bridge -j fdb",
        "bridge vlan tunnelshow",
        "tc qdisc",
        "tc qdisc show dev eth0",
        "tc -s qdisc ls dev eth0",
        "tc -s -d class show dev eth0",
        "tc filter show dev eth0",
        "tc actions ls action gact",
        "tc -j qdisc",
    ] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "bridge link set dev eth0 state 3",
        "bridge fdb add aa:bb:cc:dd:ee:ff dev eth0",
        "bridge fdb del aa:bb:cc:dd:ee:ff dev eth0",
        "bridge vlan add vid 10 dev eth0",
        "bridge -b cmds",
        "tc qdisc add dev eth0 root netem delay 100ms",
        "tc qdisc del dev eth0 root",
        "tc q d dev eth0 root",
        "tc qdisc replace dev eth0 root fq",
        "tc class change dev eth0 classid 1:1 htb rate 1mbit",
        "tc filter add dev eth0 parent 1: u32",
        "tc actions flush action gact",
        "tc exec bpf",
        "tc -batch file",
    ] {
        assert!(is_write(line), "{line}");
    }
    assert!(is_interactive("bridge monitor"));
    assert!(is_interactive("tc monitor"));
}
