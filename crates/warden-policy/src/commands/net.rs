//! Networking and cloud CLIs: addresses, routes, links, firewalls, probes,
//! packet capture, DNS, HTTP clients, TLS tools, and the cloud and DevOps
//! command lines.
//!
//! The rules prefer allowlists: a subcommand or option that is not known to
//! be read-only makes the command unknown. Options are read with the one
//! walker ([`crate::options`]), and
//! [`resolve`] resolves iproute2-style abbreviations in the program's order.

#[cfg(test)]
mod cases;
mod cloud;
mod devops;
pub(crate) mod exfil;
mod fetch;
mod firewall;
mod http;
mod iproute;
mod links;
mod lookup;
mod nmcli;
mod probe;
mod tls;
pub(crate) mod urls;

use super::Rule;
use super::common::always_read;
use crate::invocation::Invocation;
use crate::verdict::Verdict;

pub(crate) const RULES: &[(&str, Rule)] = &[
    // iproute2
    ("ip", iproute::ip),
    ("bridge", iproute::bridge),
    ("tc", iproute::tc),
    // links, addresses, wireless, tunnels
    ("ss", links::ss),
    ("netstat", links::netstat),
    ("ifconfig", links::ifconfig),
    ("route", links::route),
    ("arp", links::arp),
    ("iw", links::iw),
    ("iwconfig", links::iwconfig),
    ("ethtool", links::ethtool),
    ("mii-tool", links::mii_tool),
    ("nmcli", nmcli::nmcli),
    ("nmtui", links::nmtui),
    ("brctl", links::brctl),
    ("wg", links::wg),
    ("wg-quick", links::wg_quick),
    ("iftop", links::iftop),
    ("nethogs", links::nethogs),
    ("nload", links::full_screen),
    ("bmon", links::full_screen),
    ("iptraf-ng", links::full_screen),
    ("vnstat", links::vnstat),
    ("lldpctl", links::lldpctl),
    // firewalls and connection tracking
    ("iptables", firewall::iptables),
    ("ip6tables", firewall::iptables),
    ("iptables-legacy", firewall::iptables),
    ("ip6tables-legacy", firewall::iptables),
    ("iptables-nft", firewall::iptables),
    ("ip6tables-nft", firewall::iptables),
    ("arptables", firewall::iptables),
    ("ebtables", firewall::iptables),
    ("iptables-save", firewall::iptables_save),
    ("ip6tables-save", firewall::iptables_save),
    ("iptables-legacy-save", firewall::iptables_save),
    ("ip6tables-legacy-save", firewall::iptables_save),
    ("iptables-nft-save", firewall::iptables_save),
    ("ip6tables-nft-save", firewall::iptables_save),
    ("iptables-restore", firewall::iptables_restore),
    ("ip6tables-restore", firewall::iptables_restore),
    ("iptables-legacy-restore", firewall::iptables_restore),
    ("ip6tables-legacy-restore", firewall::iptables_restore),
    ("iptables-nft-restore", firewall::iptables_restore),
    ("ip6tables-nft-restore", firewall::iptables_restore),
    ("iptables-apply", super::common::high_write),
    ("nft", firewall::nft),
    ("ufw", firewall::ufw),
    ("firewall-cmd", firewall::firewall_cmd),
    ("conntrack", firewall::conntrack),
    ("ipset", firewall::ipset),
    // probes, capture, raw sockets, DNS
    ("ping", probe::ping),
    ("ping6", probe::ping),
    ("arping", probe::arping),
    ("fping", probe::fping),
    ("fping6", probe::fping),
    ("traceroute", always_read),
    ("traceroute6", always_read),
    ("tracepath", always_read),
    ("tracepath6", always_read),
    ("tcptraceroute", always_read),
    ("mtr", probe::mtr),
    ("tcpdump", probe::tcpdump),
    ("tshark", probe::tshark),
    ("dumpcap", probe::dumpcap),
    ("nc", probe::netcat),
    ("ncat", probe::netcat),
    ("netcat", probe::netcat),
    ("socat", probe::socat),
    ("telnet", probe::remote_shell),
    ("ftp", probe::remote_shell),
    ("tftp", probe::remote_shell),
    ("sftp", probe::sftp),
    ("lftp", probe::lftp),
    ("nmap", probe::nmap),
    ("dig", lookup::dig),
    ("host", always_read),
    ("drill", lookup::dig),
    ("delv", always_read),
    ("kdig", lookup::dig),
    ("nslookup", lookup::nslookup),
    ("whois", always_read),
    // HTTP clients
    ("curl", http::curl),
    ("wget", fetch::wget),
    ("wget2", fetch::wget),
    ("http", fetch::httpie),
    ("https", fetch::httpie),
    ("xh", fetch::httpie),
    ("xhs", fetch::httpie),
    // TLS and SSH keys
    ("openssl", tls::openssl),
    ("ssh-keygen", tls::ssh_keygen),
    ("ssh-keyscan", always_read),
    ("sshpass", tls::sshpass),
    // cloud CLIs
    ("aws", cloud::aws),
    ("az", cloud::az),
    ("gcloud", cloud::gcloud),
    ("doctl", cloud::doctl),
    ("hcloud", cloud::hcloud),
    // DevOps tools
    ("terraform", devops::terraform),
    ("tofu", devops::terraform),
    ("vault", devops::vault),
    ("consul", devops::consul),
    ("nomad", devops::nomad),
    ("packer", devops::packer),
    ("ansible", devops::ansible),
    ("ansible-playbook", devops::ansible_playbook),
    ("ansible-inventory", devops::ansible_inventory),
    ("ansible-doc", always_read),
    ("ansible-config", devops::ansible_config),
    ("ansible-galaxy", devops::ansible_galaxy),
    ("ansible-vault", devops::ansible_vault),
    ("ansible-console", devops::repl_writer),
    ("tailscale", devops::tailscale),
    ("cloudflared", devops::cloudflared),
];

/// The first entry of `table` whose name starts with `word`, the way
/// iproute2, nmcli and ipset match abbreviated keywords: in table order.
pub(super) fn resolve<T: Copy>(word: &str, table: &[(&'static str, T)]) -> Option<T> {
    if word.is_empty() {
        return None;
    }
    table
        .iter()
        .find(|(name, _)| name.starts_with(word))
        .map(|&(_, t)| t)
}

/// For commands with options that write or run programs: the verdict when
/// some argument could expand into such an option.
pub(super) fn variable_option(inv: &Invocation<'_, '_>) -> Option<Verdict> {
    super::common::variable_guard(inv)
}

/// `-`, `/dev/null`, standard output or error: no file is written.
pub(super) fn is_sink(target: Option<&str>) -> bool {
    matches!(
        target,
        Some("-" | "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/fd/1" | "/dev/fd/2")
    )
}

/// Is every character an ASCII lower-case letter, digit or `-`, as cloud CLI
/// command words are? (`EC2` and `DESCRIBE-INSTANCES` are not.)
pub(super) fn is_command_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_keywords_in_order() {
        let table = [("set", 1), ("show", 2), ("save", 3)];
        assert_eq!(resolve("s", &table), Some(1));
        assert_eq!(resolve("sh", &table), Some(2));
        assert_eq!(resolve("sa", &table), Some(3));
        assert_eq!(resolve("x", &table), None);
        assert_eq!(resolve("", &table), None);
    }
}
