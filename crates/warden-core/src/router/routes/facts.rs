//! Host facts operators ask for most: top processes, open ports, who is
//! logged in, kernel and OS, pending updates, failed units. One bounded,
//! read-only command each (a test checks the policy agrees); the answer is
//! worded from its output (`render/facts.rs`) and says where the numbers
//! come from.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::systemd::SYSTEMD_RUNS;
use crate::router::intent::{Fact, ProcessOrder};
use crate::router::markers::{NO_SS, NO_SYSTEMCTL, OS_MARKER};
use crate::router::plan::{Call, Step, args};
use crate::router::render::facts::{TOP_COUNT, answer};
use crate::router::render::{Res, failure, named};

/// Pending updates, from the local package lists only (refreshing them is
/// a write); the first line names the package manager for the answer.
const UPDATES_COMMAND: &str = "if command -v apt >/dev/null; then echo @@warden:apt; apt list --upgradable 2>/dev/null; \
elif command -v dnf >/dev/null; then echo @@warden:dnf; dnf -q -C check-update || true; \
elif command -v yum >/dev/null; then echo @@warden:yum; yum -q -C check-update || true; \
elif command -v apk >/dev/null; then echo @@warden:apk; apk list -u 2>/dev/null; \
else echo @@warden:no-package-manager; fi";

/// The one bounded, read-only command that reads the fact.
fn command(fact: Fact) -> String {
    match fact {
        Fact::TopProcesses(order) => {
            let sort = match order {
                ProcessOrder::Cpu => "-pcpu",
                ProcessOrder::Memory => "-rss",
            };
            format!(
                "ps -eo pid,user,pcpu,pmem,rss,comm --sort={sort} | head -n {}",
                TOP_COUNT + 1
            )
        }
        Fact::Ports { .. } => format!(
            "if command -v ss >/dev/null; then ss -tulnp; else echo {NO_SS}; netstat -tulnp 2>/dev/null; fi"
        ),
        Fact::Sessions => "who".to_string(),
        Fact::Kernel => {
            format!("uname -srvm; echo {OS_MARKER}; cat /etc/os-release 2>/dev/null || true")
        }
        Fact::Updates => UPDATES_COMMAND.to_string(),
        Fact::FailedUnits => format!(
            "if {SYSTEMD_RUNS}; then systemctl list-units --failed --no-legend --plain --no-pager; else echo {NO_SYSTEMCTL}; fi"
        ),
    }
}

/// What reading the fact is, for a failure ("could not list …").
fn what(fact: Fact) -> &'static str {
    match fact {
        Fact::TopProcesses(_) => "list the processes",
        Fact::Ports { .. } => "list the listening ports",
        Fact::Sessions => "list who is logged in",
        Fact::Kernel => "read the kernel version",
        Fact::Updates => "list pending updates",
        Fact::FailedUnits => "list failed units",
    }
}

pub fn fact(host: &Resource, fact: Fact, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "read",
            args("exec", host, json!({"command": command(fact)})),
        )]),
        (_, [result, ..]) if Res(result).ok() => {
            Step::Answer(answer(fact, host, Res(result).stdout()))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("{} on {}", what(fact), named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}
