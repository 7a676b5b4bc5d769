//! The real server in this process, with the paced fake model, a static
//! inventory and simulated hosts; prints `READY <base> <token> <pid>`.

use std::sync::Arc;
use std::time::Duration;

use warden_core::simulated::{SimulatedHosts, StaticInventory};
use warden_protocol::Resource;
use warden_server::ServerConfig;
use warden_server::auth::{Person, Role, TokenExpiry, TokenRequest, create_token};
use warden_store::Store;
use warden_world::world::Deciders;
use warden_world::{Config, Simulated, WorldBuilder};

use crate::Flags;
use crate::paced::PacedModel;

pub async fn run(flags: &Flags) {
    let port = flags.number("port", 7900);
    let pace = Duration::from_millis(flags.number("pace-ms", 20));
    let tokens = flags.number("tokens", 50);
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServerConfig::new(dir.path().to_path_buf());
    config.listen = format!("127.0.0.1:{port}").parse().unwrap();
    let store = Arc::new(Store::open(&config.database_path()).unwrap());
    let world = WorldBuilder::new(Config::builtin())
        .store(Arc::clone(&store))
        .server_data_dir(config.data_dir.clone())
        .deciders(Deciders::Named("system".into()))
        .agents(Default::default())
        .simulated(Simulated::new(
            Arc::new(StaticInventory::new(vec![Resource::new(
                "host:web1".parse().unwrap(),
                "web1",
            )])),
            Arc::new(SimulatedHosts::default()),
        ))
        .model(Arc::new(move || {
            Some(Box::new(PacedModel { pace, tokens }) as _)
        }))
        .build()
        .await
        .unwrap();
    let started = warden_server::start(config, Arc::new(world)).await.unwrap();
    let owner = Person::user("load");
    let request = TokenRequest {
        name: "load",
        role: Role::Operator,
        expiry: TokenExpiry::Never,
        owner: &owner,
        created_by: "user:load",
    };
    let token = create_token(&store, &request, 0).unwrap().secret;
    println!(
        "READY http://{} {token} {}",
        started.local_addr,
        std::process::id()
    );
    tokio::signal::ctrl_c().await.unwrap();
    started.shutdown_handle().shutdown();
    started.wait().await.unwrap();
}
