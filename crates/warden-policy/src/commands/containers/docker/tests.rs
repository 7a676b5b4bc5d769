use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

#[test]
fn reads() {
    for line in [
        "docker ps",
        "docker ps -a",
        "docker ps --filter status=exited",
        "docker ps -aq --no-trunc",
        "docker ps --format table",
        "docker -H tcp://10.0.0.5:2375 ps",
        "docker --context prod ps -a",
        "docker -c prod --log-level=debug images",
        "docker -D info",
        "docker --tlsverify --tlscacert ca.pem ps",
        "docker images",
        "docker image ls",
        "docker image list",
        "docker image inspect nginx:latest",
        "docker image history nginx --no-trunc",
        "docker inspect --format {{.State.Health.Status}} grafana",
        "docker inspect -f {{.Id}} web",
        "docker logs -n 50 grafana",
        "docker logs --tail=100 web",
        "docker logs --since 10m --timestamps web",
        "docker logs --follow=false web",
        "docker top web",
        "docker top web aux",
        "docker top web -ef",
        "docker port web 80",
        "docker diff web",
        "docker version",
        "docker version --format json",
        "docker info",
        "docker stats --no-stream",
        "docker stats --no-stream -a web",
        "docker container stats --no-stream",
        "docker events --until 1m",
        "docker events --since 1h --until 2024-01-01",
        "docker system df",
        "docker system df -v",
        "docker system info",
        "docker system events --since 10m --until 0s",
        "docker container ls -a",
        "docker container inspect web",
        "docker container logs web --tail 100",
        "docker container top web",
        "docker container port web",
        "docker container diff web",
        "docker network ls",
        "docker network inspect bridge",
        "docker volume ls -q",
        "docker volume inspect data",
        "docker context ls",
        "docker context inspect prod",
        "docker context show",
        "docker plugin ls",
        "docker plugin inspect p",
        "docker node ls",
        "docker node ps self",
        "docker node inspect --pretty self",
        "docker service ls",
        "docker service ps web",
        "docker service inspect web",
        "docker service logs web --tail 100",
        "docker stack ls",
        "docker stack ps s",
        "docker stack services s",
        "docker secret ls",
        "docker secret inspect s",
        "docker config ls",
        "docker config inspect c",
        "docker manifest inspect nginx",
        "docker buildx ls",
        "docker buildx du",
        "docker buildx inspect",
        "docker buildx version",
        "docker buildx imagetools inspect nginx",
        "docker search nginx --limit 10",
        "docker help",
        "docker --version",
        "docker -v",
        "docker compose config",
        "docker image inspect $IMAGE",
        "podman ps -a",
        "podman --remote ps",
        "podman pod ps",
        "podman image exists nginx",
        "podman events --stream=false",
        "podman generate kube web",
        "podman kube generate web",
        "podman ps --ns",
        "podman system connection list",
        "nerdctl -n k8s.io ps",
        "nerdctl --namespace k8s.io images",
    ] {
        assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn writes() {
    for line in [
        "docker",
        "docker PS",
        "docker frob",
        "docker container nonexistent",
        "docker container LS",
        "docker ps --evil",
        "docker --out x ps",
        "podman --out x ps",
        "podman --conmon /tmp/x ps",
        "docker run nginx",
        "docker run -d nginx",
        "docker create nginx",
        "docker start web",
        "docker stop web",
        "docker restart web",
        "docker kill web",
        "docker pause grafana",
        "docker unpause web",
        "docker rm web",
        "docker rm -f web",
        "docker rename a b",
        "docker update --restart=always grafana",
        "docker wait web",
        "docker cp web:/etc/x .",
        "docker commit web img",
        "docker export web",
        "docker export -o web.tar web",
        "docker container export web --output c.tar",
        "docker save nginx",
        "docker save -o n.tar nginx",
        "docker load -i n.tar",
        "docker import x.tar",
        "docker build -t app .",
        "docker buildx build .",
        "docker buildx create",
        "docker buildx rm b",
        "docker buildx prune",
        "docker buildx inspect --bootstrap",
        "docker pull nginx",
        "docker push app",
        "docker tag a b",
        "docker rmi nginx",
        "docker image rm nginx",
        "docker image prune -a",
        "docker login",
        "docker logout",
        "docker network create n",
        "docker network rm old-net",
        "docker network connect n web",
        "docker network disconnect n web",
        "docker network prune",
        "docker volume create v",
        "docker volume rm v",
        "docker volume prune",
        "docker system prune -af",
        "docker container prune",
        "docker plugin install p",
        "docker plugin enable p",
        "docker swarm init",
        "docker swarm join-token worker",
        "docker node update n",
        "docker node rm n",
        "docker service create nginx",
        "docker service update web",
        "docker service scale web=3",
        "docker service rm web",
        "docker service rollback web",
        "docker stack deploy -c s.yml s",
        "docker stack rm s",
        "docker secret create s f",
        "docker config rm c",
        "docker context create c",
        "docker context use c",
        "docker context rm c",
        "docker context import c f",
        "docker context export c",
        "docker trust sign img",
        "docker trust revoke img",
        "docker manifest create m",
        "docker manifest push m",
        "docker checkpoint create web cp",
        "docker scout cves nginx",
        "docker exec grafana",
        "docker exec -d web touch /x",
        "docker exec --detach web touch /x",
        "docker exec --env-file e web ls",
        "docker exec -e LD_PRELOAD=/x.so web ls",
        "docker exec -e FOO=1 web env",
        "docker exec -e SSLKEYLOGFILE=/tmp/k web curl https://x",
        "docker exec --env=PATH=/tmp web ls",
        "docker exec --frob web ls",
        "docker stats --no-stream --evil",
        "podman generate kube -f x.yaml web",
        "podman healthcheck run web",
    ] {
        assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn risks() {
    for (line, risk) in [
        ("docker rm web", Risk::MediumWrite),
        ("docker rm -f web", Risk::HighWrite),
        ("podman kube generate -f x.yaml web", Risk::LowWrite),
        ("docker container rm --force web", Risk::HighWrite),
        ("docker rmi nginx", Risk::HighWrite),
        ("docker pull nginx", Risk::LowWrite),
        ("docker tag a b", Risk::LowWrite),
        ("docker volume prune", Risk::HighWrite),
        ("docker system prune", Risk::HighWrite),
        ("docker stop web", Risk::MediumWrite),
    ] {
        match rule_verdict(line) {
            Verdict::Write(r, _) => assert_eq!(r, risk, "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn interactive() {
    for line in [
        "docker logs -f grafana",
        "docker logs -f --tail=100 grafana",
        "docker logs --follow web",
        "docker logs -tf web",
        "docker container logs web --follow",
        "docker service logs -f web",
        "docker stats",
        "docker stats web",
        "docker container stats",
        "docker events",
        "docker events --since 1h",
        "docker system events",
        "docker run -it ubuntu bash",
        "docker run -ti ubuntu bash",
        "docker run --rm -it alpine sh",
        "docker run --interactive --tty alpine sh",
        "docker attach web",
        "podman run -it fedora",
    ] {
        assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
    }
}

fn rewrite(line: &'static str) -> Option<String> {
    match rule_verdict(line) {
        Verdict::Interactive(_) => crate::commands::testing::full_rewrite(line),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn rewrites() {
    for (line, expected) in [
        ("docker logs -f X", Some("docker logs --tail=200 X")),
        (
            "docker logs -f --tail=100 grafana",
            Some("docker logs --tail=100 grafana"),
        ),
        (
            "docker logs -n 20 --follow web",
            Some("docker logs -n 20 web"),
        ),
        (
            "docker -H h logs -f web",
            Some("docker -H h logs --tail=200 web"),
        ),
        (
            "docker container logs -f web",
            Some("docker container logs --tail=200 web"),
        ),
        // The follow flag is taken out of its cluster.
        ("docker logs -ft web", Some("docker logs --tail=200 -t web")),
        ("docker stats", Some("docker stats --no-stream")),
        ("docker stats web", Some("docker stats --no-stream web")),
    ] {
        assert_eq!(rewrite(line).as_deref(), expected, "{line}");
    }
    for line in ["docker logs --tail=200 X", "docker stats --no-stream web"] {
        assert!(is_read(line), "{line}");
    }
}

#[test]
fn exec_wraps() {
    for (line, start, tty) in [
        ("docker exec grafana cat /etc/grafana/grafana.ini", 2, false),
        ("docker exec -i web cat /x", 3, false),
        ("docker exec -u root -w /tmp web ls", 6, false),
        ("docker exec -e LANG=C web env", 4, false),
        ("docker exec --user=root web id", 3, false),
        ("docker exec -it web sh", 3, true),
        ("docker exec -ti grafana sh", 3, true),
        ("docker exec -t web ls", 3, true),
        ("docker exec --tty web ls", 3, true),
        ("docker exec -itu root web sh", 4, true),
        ("docker -H h exec web ls", 4, false),
        ("docker container exec web ls", 3, false),
        ("docker exec $C cat /x", 2, false),
        ("podman exec -it web bash", 3, true),
    ] {
        match rule_verdict(line) {
            Verdict::Wrap(w) => {
                assert_eq!(w.inner, crate::verdict::Inner::Argv { start }, "{line}");
                assert_eq!(
                    w.interactive.map(|i| i.category),
                    tty.then_some(InteractiveCategory::TtyFlag),
                    "{line}"
                );
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}
