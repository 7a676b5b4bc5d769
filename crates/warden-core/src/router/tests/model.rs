//! With a model configured the router keeps only what it is sure of: fast
//! paths and command parses whose names resolve as the request describes
//! them. The rest goes to the (scripted) model, and the route says why.

use warden_llm::ModelReply;

use crate::router::intent::Stage;
use crate::router::route;

use super::{answer, ask_with_model, inventory};

fn says(text: &str) -> Vec<ModelReply> {
    vec![ModelReply {
        text: Some(text.to_string()),
        tool_calls: Vec::new(),
        usage: None,
    }]
}

#[test]
fn bounce_the_cache_container_goes_to_the_model() {
    let out = ask_with_model(
        "please bounce the cache container",
        says("Which host runs the cache container?"),
        vec![],
    );
    assert_eq!(out.route.stage, Stage::Llm);
    assert_eq!(
        out.route.reason,
        "handed to the model: the `control` pattern matched the whole request, but `cache` is not a container Warden knows"
    );
    assert!(out.commands.is_empty(), "{:?}", out.commands);
    assert!(!out.tools().contains(&"control"));
    assert_eq!(out.text, "Which host runs the cache container?");
}

#[test]
fn what_the_router_keeps_and_what_it_hands_over() {
    let inventory = inventory();
    let cases: &[(&str, Stage, &str)] = &[
        ("disk usage", Stage::FastPath, "certain"),
        ("restart nginx", Stage::FastPath, "certain"),
        ("why did jellyfin exit", Stage::FastPath, "certain"),
        ("df -h", Stage::Parser, "certain"),
        ("stop jellyfin and redis", Stage::FastPath, "certain"),
        (
            "restart cache",
            Stage::Llm,
            "`cache` is not a service web1 reported",
        ),
        (
            "why did backup fail",
            Stage::Llm,
            "`backup` is not a service web1 reported",
        ),
        (
            "could you stop redis for me",
            Stage::Llm,
            "only a keyword guess",
        ),
        (
            "how full is the disk on pve1",
            Stage::Llm,
            "only a keyword guess",
        ),
        (
            "why is jellyfin slow",
            Stage::Llm,
            "no fast path, command parse or keyword matched",
        ),
        (
            "disk usage on nowhere",
            Stage::Llm,
            "`nowhere` is not a resource Warden knows",
        ),
        ("systemctl restart nginx", Stage::Llm, "changes things"),
        (
            "stop the jellyfin and cache containers",
            Stage::Llm,
            "`cache` is not a container",
        ),
    ];
    for (text, stage, reason) in cases {
        let (info, plan) = route(&inventory, text, true);
        assert_eq!(info.stage, *stage, "{text}: {}", info.reason);
        assert!(info.reason.contains(reason), "{text}: {}", info.reason);
        assert_eq!(plan.is_none(), *stage == Stage::Llm, "{text}");
        // Without a model, the same requests are the router's.
        let (alone, _) = route(&inventory, text, false);
        assert_ne!(alone.stage, Stage::Llm, "{text}");
    }
}

#[test]
fn a_known_service_stays_with_the_router() {
    let out = ask_with_model(
        "restart nginx",
        says("unused"),
        vec![answer(
            "@@warden:unit-check",
            "@@warden:unit-check\nId=nginx.service\nLoadState=loaded\n",
            0,
        )],
    );
    assert_eq!(out.route.stage, Stage::FastPath);
    assert_eq!(out.tools(), ["query", "read", "control"]);
    assert!(out.text.starts_with("Not done yet"), "{}", out.text);
}

#[test]
fn proxmox_fast_paths_stay_and_guesses_go_to_the_model() {
    let inventory = crate::simulated::StaticInventory::new(super::pve::resources());
    let cases: &[(&str, Stage, &str)] = &[
        ("stop web", Stage::FastPath, "certain"),
        ("kill vm 101", Stage::FastPath, "certain"),
        ("memory of web this week", Stage::FastPath, "certain"),
        ("snapshots of ct 141", Stage::FastPath, "certain"),
        ("roll back web to base", Stage::FastPath, "certain"),
        ("take a snapshot of db", Stage::FastPath, "certain"),
        (
            "kill nginx",
            Stage::Llm,
            "a force stop (`kill`) is only for guests",
        ),
        (
            "kill ops",
            Stage::Llm,
            "a force stop (`kill`) is only for guests",
        ),
        (
            "snapshots of nowhere",
            Stage::Llm,
            "`nowhere` is not a guest",
        ),
        (
            "status of ct 101",
            Stage::Llm,
            "`101` is not a LXC container",
        ),
        (
            "could you reboot web for me",
            Stage::Llm,
            "only a keyword guess",
        ),
    ];
    for (text, stage, reason) in cases {
        let (info, plan) = route(&inventory, text, true);
        assert_eq!(info.stage, *stage, "{text}: {}", info.reason);
        assert!(info.reason.contains(reason), "{text}: {}", info.reason);
        assert_eq!(plan.is_none(), *stage == Stage::Llm, "{text}");
        let (alone, _) = route(&inventory, text, false);
        assert_ne!(alone.stage, Stage::Llm, "{text}");
    }
    let out = super::pve::Pve {
        model: Some(warden_llm::ScriptedProvider::new(says("unused"))),
        ..super::pve::Pve::default()
    }
    .ask("stop web", vec![]);
    assert_eq!(out.tools(), ["query", "control", "query"]);
    assert!(out.text.starts_with("Done: web"), "{}", out.text);
}
