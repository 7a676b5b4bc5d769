//! A real `warden-server` in this process on a loopback socket, for the
//! server's API and agent tests: a static inventory (pve1 with web1 and
//! cache), simulated hosts whose Proxmox API serves those guests, a SQLite
//! store in a temporary directory, a bearer token per role, and an
//! in-process model that plays a script chosen by the user's message
//! ([`ScriptBook`]). [`agents`] adds enrollment and the scripted agent's
//! sockets.

pub mod agents;
mod script_book;

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Client, Method, Response, StatusCode};
use serde_json::{Value, json};
use warden_core::simulated::{SimulatedGuestApi, SimulatedHosts, StaticInventory};
use warden_protocol::Resource;
use warden_server::auth::{Person, Role, TokenExpiry, TokenRequest, add_user, create_token};
use warden_server::{FourEyes, ServerConfig, ShutdownHandle, Started};
use warden_store::Store;
use warden_world::agents::AgentSettings;
use warden_world::world::Deciders;
use warden_world::{Config, Simulated, WorldBuilder};

pub use agents::connect;
pub use script_book::{BookModel, Script, ScriptBook};

use crate::fixtures::hosts;
use crate::fixtures::resources::pve1_with_web1_and_cache as inventory;
use crate::http::client;
use crate::sse;
use crate::time::now_ms;

pub struct Options {
    pub config: Box<dyn FnOnce(&mut ServerConfig)>,
    /// Changes to the effective configuration (what turns read).
    pub settings: Box<dyn FnOnce(&mut Config)>,
    /// Changes to how agents are treated.
    pub agents: Box<dyn FnOnce(&mut AgentSettings)>,
    pub book: ScriptBook,
    pub data_dir: Option<Arc<tempfile::TempDir>>,
    /// Resources added to the static inventory (this machine's own).
    pub extra_inventory: Vec<Resource>,
    /// This machine and its real commands instead of the simulated
    /// inventory and hosts (`hosts` then stays unused).
    pub this_machine: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            config: Box::new(|_| {}),
            settings: Box::new(|_| {}),
            agents: Box::new(|_| {}),
            book: ScriptBook::default(),
            data_dir: None,
            extra_inventory: Vec::new(),
            this_machine: false,
        }
    }
}

pub struct TestServer {
    pub base: String,
    pub client: Client,
    pub store: Arc<Store>,
    pub hosts: Arc<SimulatedHosts>,
    pub dir: Arc<tempfile::TempDir>,
    pub book: ScriptBook,
    pub started: Option<Started>,
    pub shutdown: ShutdownHandle,
    /// Tokens per role.
    pub viewer: String,
    pub operator: String,
    pub approver: String,
    pub admin: String,
}

/// The simulated Proxmox API for the guests of [`inventory`] only, as a
/// cluster's API serves its own guests and not those an agent reports.
struct ClusterGuests {
    api: SimulatedGuestApi<'static>,
    ids: std::collections::HashSet<warden_protocol::ResourceId>,
}

impl warden_core::ports::GuestApi for ClusterGuests {
    fn serves(&self, resource: Option<&Resource>) -> bool {
        resource.is_some_and(|r| self.ids.contains(&r.id)) && self.api.serves(resource)
    }

    fn call<'a>(
        &'a self,
        request: warden_core::ports::ApiRequest<'a>,
    ) -> warden_core::ports::BoxFuture<'a, warden_core::ports::ApiResult> {
        self.api.call(request)
    }
}

pub async fn start(options: Options) -> TestServer {
    let dir = options
        .data_dir
        .unwrap_or_else(|| Arc::new(tempfile::tempdir().unwrap()));
    let mut config = ServerConfig::new(dir.path().to_path_buf());
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.shutdown_grace = Duration::from_millis(300);
    (options.config)(&mut config);
    let store = Arc::new(Store::open(&config.database_path()).unwrap());
    let hosts = Arc::new(hosts::answering("active\n"));
    // The guests' Proxmox API answers from the same table (a snapshot is
    // offered before a change to a guest only when an API serves it).
    let leaked_hosts: &'static Arc<SimulatedHosts> = Box::leak(Box::new(Arc::clone(&hosts)));
    let book = options.book;
    let factory_book = book.clone();
    let mut settings = Config::builtin();
    (options.settings)(&mut settings);
    let mut agents = AgentSettings::default();
    (options.agents)(&mut agents);
    let mut builder = WorldBuilder::new(settings)
        .store(Arc::clone(&store))
        .server_data_dir(config.data_dir.clone())
        .deciders(Deciders::Named("system".into()))
        .agents(agents);
    if !options.this_machine {
        builder = builder.simulated(Simulated {
            inventory: Arc::new(StaticInventory::new(
                inventory()
                    .into_iter()
                    .chain(options.extra_inventory)
                    .collect(),
            )),
            hosts: hosts.clone(),
            guest_api: Arc::new(ClusterGuests {
                api: SimulatedGuestApi::new(leaked_hosts),
                ids: inventory().into_iter().map(|r| r.id).collect(),
            }),
        });
    }
    let world = builder
        .model(Arc::new(move || {
            Some(Box::new(factory_book.provider()) as _)
        }))
        .build()
        .await
        .unwrap();
    let started = warden_server::start(config, Arc::new(world)).await.unwrap();
    let base = format!("http://{}", started.local_addr);
    // Each role's token belongs to its own person (`user:viewer`, …).
    let token = |name: &str, role: Role| mint(&store, name, role, &Person::user(name));
    TestServer {
        viewer: token("viewer", Role::Viewer),
        operator: token("operator", Role::Operator),
        approver: token("approver", Role::Approver),
        admin: token("admin", Role::Admin),
        base,
        client: client(),
        hosts,
        dir,
        book,
        shutdown: started.shutdown_handle(),
        started: Some(started),
        store,
    }
}

impl TestServer {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with a bearer token and an optional JSON body.
    pub async fn call(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Response {
        let mut request = self
            .client
            .request(method, self.url(path))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.unwrap()
    }

    pub async fn json(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let response = self.call(token, method, path, body).await;
        let status = response.status();
        let text = response.text().await.unwrap();
        let value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, value)
    }

    pub async fn create_session(&self, token: &str) -> String {
        let (status, body) = self
            .json(
                token,
                Method::POST,
                "/api/sessions",
                Some(json!({"title": "test"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["id"].as_str().unwrap().to_string()
    }

    pub async fn post(&self, token: &str, session: &str, text: &str) -> (StatusCode, Value) {
        self.json(
            token,
            Method::POST,
            &format!("/api/sessions/{session}/messages"),
            Some(json!({"text": text})),
        )
        .await
    }

    pub async fn events(
        &self,
        token: &str,
        session: &str,
        last_event_id: Option<u64>,
    ) -> sse::EventReader {
        let mut request = self
            .client
            .get(self.url(&format!("/api/sessions/{session}/events")))
            .bearer_auth(token);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        sse::EventReader::new(response)
    }

    /// A user with a password, for browser logins.
    pub fn add_user(&self, name: &str, role: Role, password: &str) {
        add_user(&self.store, name, role, password, now_ms()).unwrap();
    }

    pub async fn stop(&mut self) -> warden_server::ShutdownReport {
        self.shutdown.shutdown();
        self.started.take().unwrap().wait().await.unwrap()
    }
}

/// A token named `name` with `role` that belongs to `owner`, made offline.
pub fn mint(store: &Store, name: &str, role: Role, owner: &Person) -> String {
    create_token(
        store,
        &TokenRequest {
            name,
            role,
            expiry: TokenExpiry::Never,
            owner,
            created_by: "user:test",
        },
        now_ms(),
    )
    .unwrap()
    .secret
}

/// The config change that turns on the four-eyes rule.
pub fn four_eyes(config: &mut ServerConfig) {
    config.four_eyes = FourEyes::On;
}
