//! Every read command a route proposes passes the read tool's policy, so a
//! route never trips over its own gate; every route produces ordinary
//! tool calls.

use serde_json::json;

use crate::router::{Plan, route};
use crate::tools::ToolCall;

use super::{calls_of, inventory, ok_with};

const REQUESTS: &[&str] = &[
    "is ssh running",
    "is ssh running on bare",
    "logs of nginx",
    "nginx logs with \"it's broken\" since 2h",
    "last 30 lines of the syslog with error",
    "syslog on bare with error since yesterday",
    "jellyfin logs with \"timeout\" since 1h",
    "list services",
    "list services on bare",
    "restart nginx",
    "restart ssh on bare",
    "stop jellyfin and redis",
    "disk usage",
    "disk usage including containers",
    "memory of jellyfin",
    "status of web1",
    "top processes by cpu",
    "top processes by memory on bare",
    "open ports",
    "what's listening on port 22",
    "who is logged in",
    "kernel version",
    "pending updates",
    "failed units",
    "errors in the last hour",
    "errors today on bare",
    "certificate expiry of example.com:8443",
    "why did nginx exit",
    "why did jellyfin crash",
];

#[test]
fn route_commands_are_read_only_by_policy() {
    let inventory = inventory();
    // Results that make every step go on: a unit that exists, a journal
    // that is missing (so file fallbacks are planned too).
    let results = [
        ok_with(
            "@@warden:unit-check\nId=nginx.service\nLoadState=loaded\nActiveState=active\n@@warden:no-journal\n",
        ),
        json!({"ok": true, "data": {"stdout": "", "exit_code": 0}}),
    ];
    for request in REQUESTS {
        let (info, plan) = route(&inventory, request, false);
        let plan = plan.unwrap_or_else(|| panic!("{request}: {}", info.reason));
        assert!(!matches!(plan, Plan::Say(_)), "{request}: {plan:?}");
        for result in &results {
            for call in calls_of(plan.clone(), result) {
                // An ordinary, valid tool call.
                let parsed = ToolCall::parse(call.tool, &call.arguments);
                assert!(parsed.is_ok(), "{request}: {call:?}: {parsed:?}");
                if call.tool != "read" {
                    continue;
                }
                if let Some(command) = call.arguments["command"].as_str() {
                    let c = warden_policy::classify(command);
                    assert!(c.read_allowed(), "{request}: `{command}`: {}", c.reason);
                }
            }
        }
    }
}
