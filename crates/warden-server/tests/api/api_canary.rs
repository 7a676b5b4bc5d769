//! Issue 17, end to end: the model's API key, written into files on this
//! machine (as is, base64-encoded, reversed), read back through the API by
//! an operator with `cat`, `base64`, `rev` and `xxd -p`. Every such output
//! is withheld (`SECRET_IN_OUTPUT`); the stream, the stored session and
//! the database never hold the key in any encoding; the audit log has the
//! security event.

use std::time::Duration;

use base64::Engine;
use reqwest::{Method, StatusCode};
use serde_json::json;
use warden_core::redact::known::KnownSecrets;
use warden_testkit::test_server::{Options, Script, start};

const KEY: &str = "sk-ant-api03-canaryZq8vK2mLx9RtYw4PbN7cJdQe0aB1";
const WAIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn the_model_api_key_never_leaves_in_any_encoding() {
    let files = tempfile::tempdir().unwrap();
    let plain = files.path().join("key.txt");
    let encoded = files.path().join("key.b64");
    let reversed = files.path().join("key.rev");
    let b64 = base64::engine::general_purpose::STANDARD.encode(KEY);
    let rev: String = KEY.chars().rev().collect();
    std::fs::write(&plain, format!("{KEY}\n")).unwrap();
    std::fs::write(&encoded, format!("{b64}\n")).unwrap();
    std::fs::write(&reversed, format!("{rev}\n")).unwrap();
    let commands = [
        format!("cat {}", plain.display()),
        format!("base64 {}", plain.display()),
        format!("rev {}", plain.display()),
        format!("cat {}", encoded.display()),
        format!("cat {}", reversed.display()),
        format!("xxd -p {}", plain.display()),
    ];
    // Two messages of three reads: the loop stops a turn after four
    // replies of only failing calls.
    let script = |commands: &[String]| {
        let mut script = Script::new();
        for command in commands {
            script = script.call(
                "read",
                json!({"action": "exec", "target": "localhost", "command": command}),
            );
        }
        script.text("nothing to see")
    };
    let options = Options {
        this_machine: true,
        settings: Box::new(|config| {
            config.api_key.value = Some(warden_llm::Secret::new(KEY));
        }),
        ..Options::default()
    };
    let server = start(options).await;
    server
        .book
        .add("please look at the key", script(&commands[..3]));
    server
        .book
        .add("ok, now the copies", script(&commands[3..]));
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    let mut got = Vec::new();
    // The third is a typed command: the router runs it, no model involved.
    let typed = format!("base64 {}", plain.display());
    for message in [
        "please look at the key",
        "ok, now the copies",
        typed.as_str(),
    ] {
        let (status, body) = server.post(&server.operator, &session, message).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        got.extend(events.until("done", WAIT).await);
    }

    let tool_ends: Vec<_> = got.iter().filter(|e| e.event == "tool_end").collect();
    assert_eq!(tool_ends.len(), commands.len() + 1, "{got:?}");
    for end in &tool_ends {
        assert_eq!(end.data["ok"], false, "{}", end.data);
        assert_eq!(end.data["error_code"], "SECRET_IN_OUTPUT", "{}", end.data);
        let output = end.data["output"].as_str().unwrap_or_default();
        assert!(output.contains("Warden's model API key"), "{output}");
    }

    let last = got.iter().rev().find(|e| e.event == "done").unwrap();
    let answer = last.data["final_text"].as_str().unwrap();
    assert!(
        answer.contains("Warden's model API key (base64)"),
        "{answer}"
    );

    // Nowhere in any encoding: the stream, the stored session, the database.
    let mut watch = KnownSecrets::new();
    watch.add("key", KEY.as_bytes()).unwrap();
    let stream: String = got.iter().map(|e| format!("{}\n", e.data)).collect();
    let (status, stored) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let mut database = Vec::new();
    for file in ["warden.db", "warden.db-wal"] {
        database.extend(std::fs::read(server.dir.path().join(file)).unwrap_or_default());
    }
    for (place, text) in [
        ("stream", stream),
        ("session", stored.to_string()),
        ("database", String::from_utf8_lossy(&database).into_owned()),
    ] {
        for needle in [KEY, b64.as_str(), rev.as_str(), &hex::encode(KEY)] {
            assert!(!text.contains(needle), "{place} holds {needle}");
        }
        assert_eq!(watch.find(&text), None, "{place}");
    }

    let (status, audit) = server
        .json(&server.viewer, Method::GET, "/api/audit?limit=1000", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let withheld: Vec<_> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["decision"] == "secret_withheld")
        .collect();
    assert_eq!(withheld.len(), commands.len() + 1, "{audit}");
    assert!(withheld.iter().all(|r| r["code"] == "SECRET_IN_OUTPUT"));
    assert_eq!(watch.find(&audit.to_string()), None);
}
