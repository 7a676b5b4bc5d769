//! Every configuration key takes effect, the same way, through `warden ask
//! --config F` and through `warden serve --config F`. The keys are read off
//! the binary itself (the loader refuses an unknown key and names the ones
//! it knows), so a key added without a row here fails this test.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::one_program::support::{
    Observed, Script, ask, calls, calls_with_usage, says, says_with_usage, serve, warden,
};
use warden_testkit::model::Reply;

/// What a row's check gets besides the run.
pub struct Context {
    /// The fake Proxmox cluster every `[[proxmox]]` row points at.
    pub pve: Option<Arc<crate::one_program::pve::Cluster>>,
}

impl Context {
    /// No Proxmox cluster.
    pub fn plain() -> Arc<Context> {
        Arc::new(Context { pve: None })
    }

    pub fn cluster(&self) -> &crate::one_program::pve::Cluster {
        self.pve
            .as_deref()
            .expect("the rows that need a cluster have one")
    }
}

type Check = Box<dyn Fn(&Observed, &Context) -> Result<(), String> + Send + Sync>;

/// One configuration key: a config file setting it (with whatever else it
/// needs), what the model plays, the request, and what shows the key took
/// effect (each check fails under the key's default).
pub struct Row {
    pub key: &'static str,
    pub config: String,
    pub script: Script,
    pub text: &'static str,
    pub env: Vec<(&'static str, String)>,
    pub check: Check,
}

/// The model section most rows need: the fake model, no retries.
pub fn model_section() -> String {
    MODEL.to_string()
}

const MODEL: &str = "[provider]\nkind = \"openai\"\nbase_url = \"{model}/v1\"\nmodel = \"test-model\"\nmax_retries = 0\n";

fn model_with(extra: &str) -> String {
    format!("{MODEL}{extra}\n")
}

fn row(
    key: &'static str,
    config: String,
    script: Script,
    text: &'static str,
    check: impl Fn(&Observed, &Context) -> Result<(), String> + Send + Sync + 'static,
) -> Row {
    Row {
        key,
        config,
        script,
        text,
        env: Vec::new(),
        check: Box::new(check),
    }
}

fn ensure(condition: bool, what: impl Into<String>) -> Result<(), String> {
    if condition { Ok(()) } else { Err(what.into()) }
}

/// A write the model proposes after finding its target.
fn write_script() -> Script {
    Script::of(vec![
        calls("query", json!({"action": "get", "target": "localhost"})),
        calls(
            "control",
            json!({"action": "command", "target": "localhost", "command": "touch /tmp/warden-key-test"}),
        ),
        says("Done."),
    ])
}

fn has_error(run: &Observed, code: &str) -> Result<(), String> {
    ensure(
        run.error_codes().iter().any(|c| c == code),
        format!("an `error` event with {code}, got {:?}", run.error_codes()),
    )
}

fn tool_end_of<'a>(run: &'a Observed, name: &str) -> Vec<&'a Value> {
    run.of_type("tool_end")
        .into_iter()
        .filter(|e| e["name"] == name)
        .collect()
}

fn final_text(run: &Observed) -> String {
    run.done()["final_text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The rows of the model's own keys.
fn provider_rows() -> Vec<Row> {
    let mut rows = vec![
        row(
            "provider.kind",
            "[provider]\nkind = \"anthropic\"\nbase_url = \"{model}\"\napi_key = \"k\"\nmodel = \"claude-test\"\nmax_retries = 0\n".into(),
            Script::forever(Reply::json(500, "{}")),
            "think about it",
            |run, _| {
                let path = run.requests.first().map(|r| r.path().to_string());
                ensure(
                    path.as_deref() == Some("/v1/messages"),
                    format!("the Anthropic wire format, got {path:?}"),
                )
            },
        ),
        row(
            "provider.base_url",
            MODEL.into(),
            Script::of(vec![says("Hello from the fake model.")]),
            "think about it",
            |run, _| {
                ensure(!run.requests.is_empty(), "a request to the configured URL")?;
                ensure(
                    final_text(run).contains("fake model"),
                    format!("the fake model's answer, got {:?}", final_text(run)),
                )
            },
        ),
        row(
            "provider.api_key",
            model_with("api_key = \"sk-from-file\""),
            Script::of(vec![says("ok")]),
            "think about it",
            |run, _| {
                let auth = run.requests.first().and_then(|r| r.header("authorization"));
                ensure(
                    auth == Some("Bearer sk-from-file"),
                    format!("the file's key, got {auth:?}"),
                )
            },
        ),
        row(
            "provider.model",
            MODEL.replace("test-model", "model-42"),
            Script::of(vec![says("ok")]),
            "think about it",
            |run, _| {
                let model = run.requests.first().map(|r| r.body["model"].clone());
                ensure(
                    model == Some(json!("model-42")),
                    format!("model-42, got {model:?}"),
                )
            },
        ),
        row(
            "provider.max_retries",
            MODEL.replace("max_retries = 0", "max_retries = 2"),
            Script::forever(Reply::json(500, "{\"error\": {\"message\": \"down\"}}")),
            "think about it",
            |run, _| {
                ensure(
                    run.requests.len() == 3,
                    format!("1 + 2 retries, got {} requests", run.requests.len()),
                )
            },
        ),
        row(
            "provider.idle_timeout_secs",
            model_with("idle_timeout_secs = 1"),
            Script::forever(Reply::sse([": keep-alive\n\n"]).stall(Duration::from_secs(40))),
            "think about it",
            |run, _| {
                has_error(run, "MODEL_TIMEOUT")?;
                ensure(
                    run.elapsed < Duration::from_secs(20),
                    format!("stopped after a second of silence, took {:?}", run.elapsed),
                )
            },
        ),
        row(
            "provider.connect_timeout_secs",
            "[provider]\nkind = \"openai\"\nbase_url = \"{unanswered}/v1\"\nmodel = \"m\"\nmax_retries = 0\nconnect_timeout_secs = 1\n".into(),
            Script::of(Vec::new()),
            "think about it",
            |run, _| {
                has_error(run, "MODEL_UNREACHABLE")?;
                ensure(
                    run.elapsed < Duration::from_secs(8),
                    format!("gave up connecting after a second, took {:?}", run.elapsed),
                )
            },
        ),
        row(
            "provider.max_output_tokens",
            model_with("max_output_tokens = 77"),
            Script::of(vec![says("ok")]),
            "think about it",
            |run, _| {
                let body = run.requests.first().map(|r| r.body.clone()).unwrap_or_default();
                let sent = body
                    .get("max_tokens")
                    .or_else(|| body.get("max_completion_tokens"))
                    .cloned();
                ensure(sent == Some(json!(77)), format!("77 output tokens, got {sent:?}"))
            },
        ),
        row(
            "provider.request_timeout_secs",
            model_with("request_timeout_secs = 2"),
            Script::forever(
                Reply::sse([crate::one_program::support::content_event("still thinking ")])
                    .then_forever(crate::one_program::support::content_event("… "), Duration::from_millis(200)),
            ),
            "think about it",
            |run, _| {
                has_error(run, "MODEL_TIMEOUT")?;
                ensure(
                    run.elapsed < Duration::from_secs(20),
                    format!("stopped after two seconds, took {:?}", run.elapsed),
                )
            },
        ),
        row(
            "provider.max_retry_after_secs",
            MODEL.replace("max_retries = 0", "max_retries = 3") + "max_retry_after_secs = 1\n",
            Script::forever(Reply::json(429, "{}").header("Retry-After", "30")),
            "think about it",
            |run, _| {
                has_error(run, "MODEL_RATE_LIMITED")?;
                ensure(
                    run.requests.len() == 1 && run.elapsed < Duration::from_secs(20),
                    format!(
                        "no 30 s wait: {} requests in {:?}",
                        run.requests.len(),
                        run.elapsed
                    ),
                )
            },
        ),
        row(
            "provider.max_reply_bytes",
            model_with("max_reply_bytes = 2000"),
            Script::of(vec![says(&"x".repeat(5000))]),
            "think about it",
            |run, _| has_error(run, "MODEL_REPLY_TOO_LARGE"),
        ),
    ];
    let mut env_key = row(
        "provider.api_key_env",
        model_with("api_key_env = \"ROW_KEY\""),
        Script::of(vec![says("ok")]),
        "think about it",
        |run, _| {
            let auth = run.requests.first().and_then(|r| r.header("authorization"));
            ensure(
                auth == Some("Bearer sk-from-env"),
                format!("the variable's key, got {auth:?}"),
            )
        },
    );
    env_key.env.push(("ROW_KEY", "sk-from-env".into()));
    rows.push(env_key);
    rows
}

/// Keys of the turn, the loop, the budget, commands and prices.
fn turn_rows() -> Vec<Row> {
    vec![
        row(
            "control_level",
            "control_level = \"read_only\"\n".to_string() + MODEL,
            write_script(),
            "do the scripted change",
            |run, _| {
                let control = tool_end_of(run, "control");
                ensure(
                    control.iter().any(|e| e["error_code"] == "POLICY_BLOCKED"),
                    format!("the write refused at read_only: {control:?}"),
                )?;
                ensure(
                    run.of_type("approval_needed").is_empty(),
                    "no approval asked",
                )
            },
        ),
        row(
            "approval_ttl_secs",
            "approval_ttl_secs = 7\n".to_string() + MODEL,
            write_script(),
            "do the scripted change",
            |run, _| {
                let needed = run.of_type("approval_needed");
                let approval = &needed.first().ok_or("an approval asked")?["approval"];
                let at = |k: &str| {
                    approval[k]
                        .as_str()
                        .and_then(warden_protocol::views::parse_rfc3339)
                        .unwrap_or(0)
                };
                let ttl = at("expires_at").saturating_sub(at("created_at"));
                ensure(
                    ttl == 7_000,
                    format!("an approval living 7 s, got {ttl} ms"),
                )
            },
        ),
        row(
            "knowledge_ttl_secs",
            "knowledge_ttl_secs = 0\n".to_string() + MODEL,
            Script::of(vec![
                calls(
                    "read",
                    json!({"action": "exec", "target": "localhost", "command": "uname -r"}),
                ),
                calls(
                    "read",
                    json!({"action": "exec", "target": "localhost", "command": "uname -r"}),
                ),
                says("The kernel is what it is."),
            ]),
            "please do the scripted reads",
            |run, _| {
                let reads = tool_end_of(run, "read");
                ensure(reads.len() == 2, format!("two reads, got {reads:?}"))?;
                ensure(
                    reads[1]["cached"] == false,
                    "the second read ran again (nothing is served from knowledge)",
                )
            },
        ),
        row(
            "db",
            "db = \"{dir}/elsewhere.db\"\n".into(),
            Script::of(Vec::new()),
            "uptime",
            |run, _| {
                let db = run.dir.join("elsewhere.db");
                let out = warden(&run.dir)
                    .args(["sessions", "--json", "--db"])
                    .arg(&db)
                    .output()
                    .map_err(|e| e.to_string())?;
                let listed = String::from_utf8_lossy(&out.stdout);
                ensure(
                    listed.contains(&run.session),
                    format!("session {} in {}: {listed}", run.session, db.display()),
                )
            },
        ),
        row(
            "loop.max_model_calls",
            model_with("") + "[loop]\nmax_model_calls = 3\n",
            Script::forever(calls("query", json!({"action": "list", "kind": "host"}))),
            "keep looking",
            |run, _| {
                has_error(run, "MODEL_CALL_LIMIT")?;
                ensure(
                    run.requests.len() == 3,
                    format!("3 model calls, got {}", run.requests.len()),
                )
            },
        ),
        row(
            "budget.max_tokens",
            model_with("") + "[budget]\nmax_tokens = 50\n",
            Script::of(vec![
                calls_with_usage("query", json!({"action": "list", "kind": "host"}), 100, 10),
                says("never reached"),
            ]),
            "keep looking",
            |run, _| has_error(run, "BUDGET_EXCEEDED"),
        ),
        row(
            "exec.timeout_secs",
            "[exec]\ntimeout_secs = 1\n".into(),
            Script::of(Vec::new()),
            "sleep 4",
            |run, _| {
                let reads = tool_end_of(run, "read");
                ensure(
                    reads.iter().any(|e| e["error_code"] == "TIMEOUT"),
                    format!("the command stopped after 1 s: {reads:?}"),
                )
            },
        ),
        row(
            "exec.max_output_bytes",
            "[exec]\nmax_output_bytes = 200\n".into(),
            Script::of(Vec::new()),
            "seq 1 2000",
            |run, _| {
                let reads = tool_end_of(run, "read");
                ensure(
                    reads.iter().any(|e| {
                        e["output"]
                            .as_str()
                            .is_some_and(|o| o.contains("\"truncated\":true"))
                    }),
                    format!("the output cut at 200 bytes: {reads:?}"),
                )
            },
        ),
        row(
            "pricing.*.input",
            model_with("") + "[pricing.test-model]\ninput = 1000000.0\noutput = 0.0\n",
            Script::of(vec![says_with_usage("ok", 2, 3)]),
            "think about it",
            |run, _| priced(run, 2.0),
        ),
        row(
            "pricing.*.output",
            model_with("") + "[pricing.test-model]\ninput = 0.0\noutput = 1000000.0\n",
            Script::of(vec![says_with_usage("ok", 2, 3)]),
            "think about it",
            |run, _| priced(run, 3.0),
        ),
    ]
}

fn priced(run: &Observed, cost: f64) -> Result<(), String> {
    let usage = run.of_type("usage");
    let seen = usage.first().map(|u| u["cost_usd"].clone());
    ensure(
        seen == Some(json!(cost)),
        format!("a cost of {cost}, got {seen:?}"),
    )
}

/// Every key the loader knows, read off the binary: a config with an
/// unknown key in each table makes it list the ones it accepts.
pub fn known_keys() -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    let probe = |text: &str| -> Option<Vec<String>> {
        let path = dir.path().join("probe.toml");
        std::fs::write(&path, text).unwrap();
        let out = warden(dir.path())
            .args(["config", "show", "--config"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let listed = err.split("unknown field `zzz_probe`, expected ").nth(1)?;
        let line = listed.lines().next().unwrap_or_default();
        Some(
            line.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect(),
        )
    };
    let mut keys = BTreeSet::new();
    let top = probe("zzz_probe = 1\n").expect("the loader lists its keys");
    for key in top {
        if let Some(inner) = probe(&format!("[{key}]\nzzz_probe = 1\n")) {
            keys.extend(inner.iter().map(|k| format!("{key}.{k}")));
        } else if let Some(inner) = probe(&format!("[[{key}]]\nzzz_probe = 1\n")) {
            keys.extend(inner.iter().map(|k| format!("{key}[].{k}")));
        } else if let Some(inner) = probe(&format!("[{key}.one]\nzzz_probe = 1\n")) {
            keys.extend(inner.iter().map(|k| format!("{key}.*.{k}")));
        } else {
            keys.insert(key);
        }
    }
    keys
}

/// Every row, those of the Proxmox keys included.
pub fn rows(pve: &crate::one_program::pve::Cluster) -> Vec<Row> {
    let mut rows = provider_rows();
    rows.extend(turn_rows());
    rows.extend(crate::one_program::pve::rows(pve));
    rows
}

/// Runs `row` through both front ends; what failed, if anything.
pub fn check_row(row: &Row, context: &Arc<Context>) -> Vec<String> {
    let env: Vec<(&str, &str)> = row.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut failures = Vec::new();
    let config = match &context.pve {
        Some(cluster) => crate::one_program::pve::fill(&row.config, cluster),
        None => row.config.clone(),
    };
    let runs: [&dyn Fn() -> Observed; 2] = [
        &|| ask(&config, &row.script, row.text, &env, context),
        &|| serve(&config, &row.script, row.text, &env, context),
    ];
    // One after the other, each checked before the next runs (a check may
    // read what its run changed in the shared cluster).
    for run in runs {
        let run = run();
        if let Err(why) = (row.check)(&run, context) {
            failures.push(format!(
                "`{}` through {}: expected {why}\n  events: {}\n  stderr: {}",
                row.key,
                run.front_end,
                serde_json::to_string(&run.events).unwrap_or_default(),
                run.stderr
                    .lines()
                    .take(20)
                    .collect::<Vec<_>>()
                    .join("\n          ")
            ));
        }
        let _ = std::fs::remove_dir_all(&run.dir);
    }
    failures
}

#[test]
fn every_configuration_key_takes_effect_through_ask_and_through_serve() {
    let pve = Arc::new(crate::one_program::pve::Cluster::start());
    let context = Arc::new(Context {
        pve: Some(Arc::clone(&pve)),
    });
    let rows = rows(&pve);
    let covered: BTreeSet<String> = rows.iter().map(|r| r.key.to_string()).collect();
    let known = known_keys();
    let missing: Vec<&String> = known.difference(&covered).collect();
    let stale: Vec<&String> = covered.difference(&known).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "every configuration key needs a row here: no row for {missing:?}; rows for keys the loader does not know: {stale:?}"
    );
    // Four rows at a time: each starts a server and an `ask`.
    let rows = Arc::new(std::sync::Mutex::new(rows.into_iter()));
    let failures = Arc::new(std::sync::Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let rows = Arc::clone(&rows);
            let failures = Arc::clone(&failures);
            let context = Arc::clone(&context);
            std::thread::spawn(move || {
                loop {
                    let next = rows.lock().unwrap().next();
                    let Some(row) = next else { return };
                    let key = row.key;
                    let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        check_row(&row, &context)
                    }))
                    .unwrap_or_else(|_| vec![format!("`{key}`: the row panicked (see above)")]);
                    failures.lock().unwrap().extend(found);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let failures = failures.lock().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
