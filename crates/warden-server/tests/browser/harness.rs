//! What every browser test stands on: a real server on a loopback port
//! (restartable on the same port and data), a fake OpenAI-compatible
//! model server, Debian's chromedriver and headless Chromium driven over
//! WebDriver (thirtyfour, download features off, our own rustls-ready
//! reqwest client), and helpers that wait on the page through the
//! `data-testid` hooks of spec/ui.md.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use thirtyfour::prelude::*;
use thirtyfour::{ChromiumLikeCapabilities, Key};
use warden_core::simulated::{SimulatedHosts, StaticInventory};
use warden_llm::ProviderKind;
use warden_protocol::{ControlLevel, Resource};
use warden_server::auth::{Role, add_user};
use warden_server::{ServerConfig, Started};
use warden_store::Store;
use warden_world::config::FilePrice;
use warden_world::world::Deciders;
use warden_world::{Config, Simulated, WorldBuilder};

use warden_testkit::fixtures::hosts::answer;
use warden_testkit::fixtures::resources::resource;
use warden_testkit::fixtures::store::{seed_enrolled_agent, seed_session};
use warden_testkit::http::client;
use warden_testkit::model::FakeModel;
use warden_testkit::time::now_ms;

/// How long a page gets for anything the tests wait on.
pub const WAIT: Duration = Duration::from_secs(20);
pub const PASSWORD: &str = "correct horse battery";

pub const HOSTILE: &str = "<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script>";

/// A Proxmox node with guests and a container, a cluster, hosts (one an
/// agent), and one resource whose name is an XSS attempt.
pub fn inventory() -> Vec<Resource> {
    // Its agent is enrolled but not connected (see `World::enroll_backup_agent`).
    let mut agent = resource("host:backup", "backup", None, Some("disconnected"));
    agent.attributes.insert("source".into(), json!("agent"));
    let mut jellyfin = resource(
        "docker_container:media-server:abc123",
        "jellyfin",
        Some("lxc:pve1:141"),
        Some("running"),
    );
    jellyfin.aliases = vec!["media".into()];
    vec![
        resource("node:pve1", "pve1", None, Some("online")),
        resource(
            "lxc:pve1:141",
            "media-server",
            Some("node:pve1"),
            Some("running"),
        ),
        jellyfin,
        resource("vm:pve1:101", "web1", Some("node:pve1"), Some("running")),
        resource("vm:pve1:102", "db1", Some("node:pve1"), Some("stopped")),
        resource("k8s_cluster:home", "home", None, Some("healthy")),
        resource(
            "k8s_node:home:n1",
            "n1",
            Some("k8s_cluster:home"),
            Some("ready"),
        ),
        agent,
        resource("host:evil", &format!("{HOSTILE}evil"), None, Some("online")),
    ]
}

fn hosts() -> Arc<SimulatedHosts> {
    Arc::new(SimulatedHosts::new(vec![
        answer(
            |c| c.contains("hostile"),
            &format!("{HOSTILE}\n<b>not bold</b>\n"),
        ),
        answer(|_| true, "active\n"),
    ]))
}

/// The server, its store and data, the fake model.
pub struct World {
    pub dir: tempfile::TempDir,
    pub store: Arc<Store>,
    pub hosts: Arc<SimulatedHosts>,
    pub model: FakeModel,
    pub base: String,
    addr: SocketAddr,
    config: ServerConfig,
    started: Option<Started>,
}

impl World {
    pub async fn start() -> World {
        World::with_config(|_| {}).await
    }

    /// The agent of `host:backup` as enrolled three minutes ago and last
    /// seen then: listed by `GET /api/agents`, not connected.
    pub fn enroll_backup_agent(&self) {
        seed_enrolled_agent(&self.store, "agent-backup", "backup", now_ms() - 180_000);
    }

    pub async fn with_config(change: impl FnOnce(&mut ServerConfig)) -> World {
        let dir = tempfile::tempdir().unwrap();
        let mut config = ServerConfig::new(dir.path().to_path_buf());
        config.listen = "127.0.0.1:0".parse().unwrap();
        config.shutdown_grace = Duration::from_millis(300);
        config.max_control_level = ControlLevel::Controlled;
        change(&mut config);
        let store = Arc::new(Store::open(&config.database_path()).unwrap());
        for (name, role) in [
            ("alice", Role::Admin),
            ("bob", Role::Approver),
            ("vic", Role::Viewer),
        ] {
            add_user(&store, name, role, PASSWORD, now_ms()).unwrap();
        }
        let mut world = World {
            dir,
            store,
            hosts: hosts(),
            model: super::fake_model::start(),
            base: String::new(),
            addr: config.listen,
            config,
            started: None,
        };
        world.serve().await;
        world
    }

    async fn serve(&mut self) {
        let mut config = self.config.clone();
        config.listen = self.addr;
        // The model as a configuration file would name it.
        let mut settings = Config::builtin();
        settings.provider.value = Some(ProviderKind::OpenAi);
        settings.base_url.value = Some(self.model.base_url());
        settings.model.value = Some("test".into());
        settings.max_retries.value = 0;
        settings.pricing.insert(
            "test".into(),
            FilePrice {
                input: 2.5,
                output: 10.0,
            },
        );
        let world = WorldBuilder::new(settings)
            .store(Arc::clone(&self.store))
            .server_data_dir(config.data_dir.clone())
            .deciders(Deciders::Named("system".into()))
            .agents(Default::default())
            .simulated(Simulated::new(
                Arc::new(StaticInventory::new(inventory())),
                self.hosts.clone(),
            ))
            .build()
            .await
            .unwrap();
        let started = warden_server::start(config, Arc::new(world)).await.unwrap();
        self.addr = started.local_addr;
        self.base = format!("http://{}", started.local_addr);
        self.started = Some(started);
    }

    /// Stop the server (gracefully) and start a new one on the same port
    /// and data: sessions and their event logs are gone, the store stays.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.serve().await;
    }

    pub async fn stop(&mut self) {
        if let Some(started) = self.started.take() {
            started.shutdown_handle().shutdown();
            started.wait().await.unwrap();
        }
    }

    /// A session made through the API (as alice), with stored messages.
    pub fn seed_session(&self, id: &str, title: &str, messages: &[Value]) {
        seed_session(&self.store, id, title, messages);
    }
}

/// Where screenshots go: `target/ui-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("ui-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

const MISSING: &str = "the browser tests need Debian's chromium and chromium-driver: run scripts/browser/setup.sh (as root)";

/// A chromedriver process, killed with its process group at the end.
struct ChromeDriver {
    child: Child,
    url: String,
}

impl ChromeDriver {
    async fn start() -> ChromeDriver {
        let program = find_program(&["chromedriver"]).unwrap_or_else(|| panic!("{MISSING}"));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        use std::os::unix::process::CommandExt;
        let child = Command::new(program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("{MISSING}: chromedriver would not start: {e}"));
        let url = format!("http://127.0.0.1:{port}");
        let http = client();
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(response) = http.get(format!("{url}/status")).send().await {
                if let Ok(status) = response.json::<Value>().await {
                    if status["value"]["ready"] == true {
                        break;
                    }
                }
            }
            assert!(
                Instant::now() < deadline,
                "{MISSING}: chromedriver never got ready"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ChromeDriver { child, url }
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // The browser runs in chromedriver's process group: end them all.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// One headless Chromium at 1280×800, driven over WebDriver.
pub struct Browser {
    pub driver: WebDriver,
    pub base: String,
    _chromedriver: ChromeDriver,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub async fn open(world: &World) -> Browser {
        Browser::open_with(world, &[]).await
    }

    /// With extra Chromium switches (`--blink-settings=…` for dark mode).
    pub async fn open_with(world: &World, extra: &[&str]) -> Browser {
        let chromedriver = ChromeDriver::start().await;
        let profile = tempfile::tempdir().unwrap();
        let mut caps = DesiredCapabilities::chrome();
        if let Some(binary) = find_program(&["chromium", "chromium-browser"]) {
            caps.set_binary(&binary.to_string_lossy()).unwrap();
        } else {
            panic!("{MISSING}: no chromium on PATH");
        }
        for arg in [
            "--headless=new",
            "--no-sandbox",
            "--window-size=1280,800",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-extensions",
            "--password-store=basic",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", profile.path().display()),
        ]
        .iter()
        .chain(extra)
        {
            caps.add_arg(arg).unwrap();
        }
        let driver = WebDriver::builder(chromedriver.url.clone(), caps)
            .client(client())
            .request_timeout(Duration::from_secs(60))
            .connect()
            .await
            .unwrap_or_else(|e| panic!("{MISSING}: Chromium would not start: {e}"));
        // The window's size includes its frame: make the page 1280×800.
        let frame = driver
            .execute(
                "return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight];",
                Vec::<Value>::new(),
            )
            .await
            .unwrap()
            .json()
            .clone();
        let (dw, dh) = (
            frame[0].as_u64().unwrap_or(0),
            frame[1].as_u64().unwrap_or(0),
        );
        driver
            .set_window_rect(0, 0, 1280 + dw as u32, 800 + dh as u32)
            .await
            .unwrap();
        Browser {
            driver,
            base: world.base.clone(),
            _chromedriver: chromedriver,
            _profile: profile,
        }
    }

    pub async fn quit(self) {
        let Browser {
            driver,
            _chromedriver,
            _profile,
            ..
        } = self;
        let _ = driver.quit().await;
    }

    pub async fn goto(&self, path: &str) {
        self.driver
            .goto(format!("{}{path}", self.base))
            .await
            .unwrap();
    }

    /// Run `script` (a function body) in the page; its return value.
    pub async fn js(&self, script: &str) -> Value {
        self.driver
            .execute(script, Vec::<Value>::new())
            .await
            .unwrap()
            .json()
            .clone()
    }

    /// Wait until `condition` (a JS expression) is truthy.
    pub async fn wait(&self, what: &str, condition: &str) {
        let deadline = Instant::now() + WAIT;
        let script =
            format!("try {{ return Boolean({condition}); }} catch (e) {{ return false; }}");
        loop {
            if self.js(&script).await == Value::Bool(true) {
                return;
            }
            if Instant::now() > deadline {
                let name = format!(
                    "failed-{}",
                    what.replace(|c: char| !c.is_alphanumeric(), "-")
                );
                self.shot(&name).await;
                let body = self
                    .js("return document.body.innerText.slice(0, 3000);")
                    .await;
                panic!("timed out waiting for {what} ({condition}); the page says:\n{body}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The element with `data-testid` (the first), once it is there.
    pub async fn tid(&self, testid: &str) -> WebElement {
        self.css(&format!("[data-testid=\"{testid}\"]")).await
    }

    /// The element matching `selector`, once it is there.
    pub async fn css(&self, selector: &str) -> WebElement {
        let query = serde_json::to_string(selector).unwrap();
        self.wait(selector, &format!("document.querySelector({query})"))
            .await;
        self.driver.find(By::Css(selector)).await.unwrap()
    }

    /// How many elements match `selector` now.
    pub async fn count(&self, selector: &str) -> usize {
        let query = serde_json::to_string(selector).unwrap();
        self.js(&format!(
            "return document.querySelectorAll({query}).length;"
        ))
        .await
        .as_u64()
        .unwrap_or(0) as usize
    }

    /// Save a screenshot as `target/ui-screenshots/NAME.png`.
    pub async fn shot(&self, name: &str) {
        let path = screenshot_dir().join(format!("{name}.png"));
        if let Err(error) = self.driver.screenshot(&path).await {
            eprintln!("screenshot {name} failed: {error}");
        }
    }

    /// Resize the page (not the window) to `width`×`height`.
    pub async fn viewport(&self, width: u32, height: u32) {
        let frame = self
            .js("return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight];")
            .await;
        let (dw, dh) = (
            frame[0].as_u64().unwrap_or(0),
            frame[1].as_u64().unwrap_or(0),
        );
        self.driver
            .set_window_rect(0, 0, width + dw as u32, height + dh as u32)
            .await
            .unwrap();
    }

    pub async fn login(&self, user: &str) {
        self.goto("/").await;
        self.tid("login-username")
            .await
            .send_keys(user)
            .await
            .unwrap();
        self.tid("login-password")
            .await
            .send_keys(PASSWORD)
            .await
            .unwrap();
        self.tid("login-submit").await.click().await.unwrap();
        self.wait("the navigation", "!document.getElementById('shell').hidden")
            .await;
    }

    /// Type into the message box and send with Enter.
    pub async fn say(&self, text: &str) {
        let input = self.tid("chat-input").await;
        input.send_keys(text).await.unwrap();
        input.send_keys(Key::Enter).await.unwrap();
    }

    /// Wait for the `n`-th finished assistant message (1-based) and return
    /// its text.
    pub async fn answer(&self, n: usize) -> String {
        let selector = "[data-testid=\"message-assistant\"]:not([data-state=\"streaming\"])";
        self.wait(
            &format!("answer {n}"),
            &format!(
                "document.querySelectorAll('{selector}').length >= {n} && !document.querySelector('[data-testid=\"message-assistant\"][data-state=\"streaming\"]')"
            ),
        )
        .await;
        self.js(&format!(
            "return document.querySelectorAll('{selector}')[{}].innerText;",
            n - 1
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }
}
