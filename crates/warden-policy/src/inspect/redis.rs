//! Redis command inspection for `redis-cli` and `valkey-cli`: only commands
//! on the read list pass.

use super::ContentInspector;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub struct RedisInspector;

/// Commands that only read (compared case-insensitively).
const READ_COMMANDS: &[&str] = &[
    "GET",
    "MGET",
    "STRLEN",
    "GETRANGE",
    "SUBSTR",
    "EXISTS",
    "TYPE",
    "TTL",
    "PTTL",
    "EXPIRETIME",
    "PEXPIRETIME",
    "KEYS",
    "SCAN",
    "SSCAN",
    "HSCAN",
    "ZSCAN",
    "DBSIZE",
    "INFO",
    "PING",
    "ECHO",
    "TIME",
    "LASTSAVE",
    "HGET",
    "HMGET",
    "HGETALL",
    "HKEYS",
    "HVALS",
    "HLEN",
    "HEXISTS",
    "HSTRLEN",
    "HRANDFIELD",
    "LLEN",
    "LRANGE",
    "LINDEX",
    "LPOS",
    "SCARD",
    "SMEMBERS",
    "SISMEMBER",
    "SMISMEMBER",
    "SRANDMEMBER",
    "SINTER",
    "SUNION",
    "SDIFF",
    "SINTERCARD",
    "ZCARD",
    "ZCOUNT",
    "ZRANGEBYSCORE",
    "ZRANGEBYLEX",
    "ZREVRANGE",
    "ZREVRANGEBYSCORE",
    "ZREVRANGEBYLEX",
    "ZRANK",
    "ZREVRANK",
    "ZSCORE",
    "ZMSCORE",
    "ZLEXCOUNT",
    "ZRANDMEMBER",
    "ZINTER",
    "ZUNION",
    "ZDIFF",
    "XLEN",
    "XRANGE",
    "XREVRANGE",
    "XINFO",
    "XPENDING",
    "GETBIT",
    "BITCOUNT",
    "BITPOS",
    "BITFIELD_RO",
    "PFCOUNT",
    "GEOPOS",
    "GEODIST",
    "GEOHASH",
    "GEOSEARCH",
    "GEORADIUS_RO",
    "GEORADIUSBYMEMBER_RO",
    "RANDOMKEY",
    "DUMP",
    "SORT_RO",
    "ROLE",
    "LOLWUT",
    "READONLY",
];

/// Commands that read unless told to store the result (`SORT … STORE dst`,
/// `GEORADIUS … STORE key`); any word that is or could be `STORE` or
/// `STOREDIST` makes them writes.
const READ_UNLESS_STORED: &[&str] = &["SORT", "GEORADIUS", "GEORADIUSBYMEMBER", "ZRANGE"];

/// Commands whose first argument decides (`CONFIG GET` reads, `CONFIG SET` writes).
const READ_SUBCOMMANDS: &[(&str, &[&str])] = &[
    ("CONFIG", &["GET", "HELP"]),
    ("CLIENT", &["LIST", "INFO", "GETNAME", "ID", "HELP"]),
    ("SLOWLOG", &["GET", "LEN", "HELP"]),
    ("LATENCY", &["LATEST", "HISTORY", "DOCTOR", "HELP", "GRAPH"]),
    (
        "MEMORY",
        &["USAGE", "STATS", "DOCTOR", "HELP", "MALLOC-STATS"],
    ),
    (
        "OBJECT",
        &["ENCODING", "FREQ", "IDLETIME", "REFCOUNT", "HELP"],
    ),
    (
        "COMMAND",
        &["COUNT", "INFO", "DOCS", "LIST", "GETKEYS", "HELP"],
    ),
    (
        "CLUSTER",
        &[
            "INFO",
            "NODES",
            "SLOTS",
            "SHARDS",
            "MYID",
            "KEYSLOT",
            "COUNTKEYSINSLOT",
            "HELP",
        ],
    ),
    (
        "SENTINEL",
        &[
            "MASTERS",
            "MASTER",
            "REPLICAS",
            "SLAVES",
            "SENTINELS",
            "GET-MASTER-ADDR-BY-NAME",
            "HELP",
        ],
    ),
    ("MODULE", &["LIST", "HELP"]),
    (
        "ACL",
        &["LIST", "USERS", "WHOAMI", "CAT", "GETUSER", "HELP"],
    ),
    ("FUNCTION", &["LIST", "HELP"]),
    ("SCRIPT", &["EXISTS", "HELP"]),
];

const UNBOUNDED: &[&str] = &["MONITOR", "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE"];
const HIGH_RISK: &[&str] = &[
    "FLUSHALL", "FLUSHDB", "SHUTDOWN", "DEL", "UNLINK", "SWAPDB", "DEBUG",
];

impl ContentInspector for RedisInspector {
    fn language(&self) -> &'static str {
        "Redis"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["redis-cli", "valkey-cli"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        if inv.has_word(&["--version", "-v", "--help"]) && inv.args.len() == 1 {
            return Verdict::Read;
        }
        if inv.has_long("--rdb") || inv.has_long("--functions-rdb") {
            return Verdict::write(Risk::LowWrite, "`--rdb` writes a dump file");
        }
        if inv.has_long("--pipe") || inv.has_short('x') || inv.has_long("--eval") {
            return Verdict::unknown("runs commands or scripts that cannot be inspected");
        }
        if [
            "--stat",
            "--latency",
            "--latency-history",
            "--latency-dist",
            "--monitor",
        ]
        .iter()
        .any(|l| inv.has_long(l))
        {
            return Verdict::interactive(InteractiveCategory::UnboundedStream, "samples forever");
        }
        if inv
            .option_value(Some('r'), None)
            .is_some_and(|n| n.starts_with('-'))
        {
            return Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "`-r -1` repeats forever",
            );
        }
        let spec = OptSpec {
            short_with_value: "hpasnurid",
            long_with_value: &[
                "--user",
                "--pass",
                "--askpass",
                "--cacert",
                "--cacertdir",
                "--cert",
                "--key",
                "--sni",
                "--pattern",
                "--count",
                "--type",
                "--quoted-pattern",
                "--intrinsic-latency",
                "--memkeys-samples",
                "--cluster",
            ],
        };
        let mut positionals = inv.positionals(spec);
        let Some((index, command)) = positionals.next() else {
            if [
                "--scan",
                "--bigkeys",
                "--memkeys",
                "--hotkeys",
                "--keystats",
                "--intrinsic-latency",
            ]
            .iter()
            .any(|l| inv.has_long(l))
            {
                return Verdict::conditional("key scan only reads");
            }
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "opens an interactive Redis session",
            );
        };
        if inv.args.get(index).is_some_and(|a| a.is_variable()) {
            return Verdict::unknown("the Redis command comes from an expansion");
        }
        let upper = command.to_ascii_uppercase();
        if UNBOUNDED.contains(&upper.as_str()) {
            return Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                format!("`{upper}` streams forever"),
            );
        }
        if READ_COMMANDS.contains(&upper.as_str()) {
            return Verdict::conditional(format!("Redis `{upper}` only reads"));
        }
        if READ_UNLESS_STORED.contains(&upper.as_str()) {
            let stores = inv
                .args
                .get(index + 1..)
                .unwrap_or_default()
                .iter()
                .any(|a| {
                    let word = a.as_str();
                    a.is_variable()
                        || word.eq_ignore_ascii_case("STORE")
                        || word.eq_ignore_ascii_case("STOREDIST")
                });
            if stores {
                return Verdict::write(
                    Risk::MediumWrite,
                    format!("`{upper} … STORE` writes a key"),
                );
            }
            return Verdict::conditional(format!("Redis `{upper}` without `STORE` only reads"));
        }
        if let Some((_, subs)) = READ_SUBCOMMANDS.iter().find(|(c, _)| *c == upper) {
            let sub = positionals
                .next()
                .map(|(_, s)| s.to_ascii_uppercase())
                .unwrap_or_default();
            if subs.contains(&sub.as_str()) {
                return Verdict::conditional(format!("Redis `{upper} {sub}` only reads"));
            }
            return Verdict::write(
                Risk::MediumWrite,
                format!("Redis `{upper} {sub}` changes the server"),
            );
        }
        let risk = if HIGH_RISK.contains(&upper.as_str()) {
            Risk::HighWrite
        } else {
            Risk::MediumWrite
        };
        Verdict::write(risk, format!("Redis `{upper}` is not a read command"))
    }
}
