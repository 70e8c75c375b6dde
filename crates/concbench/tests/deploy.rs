//! deploy/ checked offline (no Docker engine or cluster is needed, or present on the machines
//! that run these tests): the Kubernetes manifests are parsed and the fields a fleet run relies
//! on are checked; the image definition is parsed and linted by BuildKit's own Dockerfile
//! frontend (`deploy/check`, a small Go program) and its stages checked.

mod common;

use common::repo_root;
use serde_json::Value;
use std::process::Command;

/// Every document of every manifest under deploy/kubernetes, as JSON values.
fn manifests() -> Vec<Value> {
    let dir = repo_root().join("deploy/kubernetes");
    let mut docs = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            for doc in serde_yaml_ng::Deserializer::from_str(&text) {
                let value: Value = serde::Deserialize::deserialize(doc)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                docs.push(value);
            }
        }
    }
    docs
}

fn job() -> Value {
    manifests()
        .into_iter()
        .find(|d| d["kind"] == "Job")
        .expect("a Job in deploy/kubernetes")
}

/// "2", 2 or "2000m" -> 2.0; anything else (fractions, other suffixes) -> None.
fn whole_cores(v: &Value) -> Option<f64> {
    let cores = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => match s.strip_suffix('m') {
            Some(milli) => milli.parse::<f64>().ok()? / 1000.0,
            None => s.parse().ok()?,
        },
        _ => return None,
    };
    (cores >= 1.0 && cores.fract() == 0.0).then_some(cores)
}

#[test]
fn the_job_is_indexed_with_one_pod_per_node() {
    let job = job();
    assert_eq!(job["apiVersion"], "batch/v1");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(spec["completions"], spec["parallelism"]);
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never");
    assert_eq!(pod["hostPID"], false, "hostPID must be false");
    let own_labels = &spec["template"]["metadata"]["labels"];
    let rules = pod["affinity"]["podAntiAffinity"]
        ["requiredDuringSchedulingIgnoredDuringExecution"]
        .as_array();
    let one_per_node = rules.is_some_and(|rules| {
        rules.iter().any(|r| {
            r["topologyKey"] == "kubernetes.io/hostname"
                && r["labelSelector"]["matchLabels"]
                    .as_object()
                    .is_some_and(|m| m.iter().all(|(k, v)| own_labels[k] == *v))
        })
    });
    assert!(
        one_per_node || pod["nodeSelector"].is_object(),
        "neither a required anti-affinity on the node nor a node selector"
    );
}

#[test]
fn each_pod_gets_whole_cores_runs_unprivileged_and_keeps_its_results() {
    let job = job();
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_ne!(pod["securityContext"]["runAsUser"], 0);
    let volumes: Vec<&str> = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    for c in pod["containers"].as_array().unwrap() {
        let name = &c["name"];
        let (requests, limits) = (&c["resources"]["requests"], &c["resources"]["limits"]);
        let cores = whole_cores(&requests["cpu"]).unwrap_or_else(|| {
            panic!("{name}: CPU request {} is not whole cores", requests["cpu"])
        });
        assert_eq!(
            whole_cores(&limits["cpu"]),
            Some(cores),
            "{name}: CPU limit != request"
        );
        assert!(cores >= 2.0, "{name}: cross-CPU placements need two cores");
        assert_eq!(
            requests["memory"], limits["memory"],
            "{name}: not Guaranteed QoS"
        );
        assert_ne!(c["securityContext"]["allowPrivilegeEscalation"], true);
        // Results go to PostgreSQL (CONCBENCH_DB from a secret) and/or to a mounted volume.
        let env = c["env"].as_array().unwrap();
        let db_from_secret = env
            .iter()
            .any(|e| e["name"] == "CONCBENCH_DB" && e["valueFrom"]["secretKeyRef"].is_object());
        let args: Vec<&str> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let json_dir = args
            .iter()
            .position(|a| *a == "--json")
            .map(|i| args[i + 1].rsplit_once('/').unwrap().0);
        let mounted = c["volumeMounts"].as_array().unwrap().iter().any(|m| {
            Some(m["mountPath"].as_str().unwrap()) == json_dir
                && volumes.contains(&m["name"].as_str().unwrap())
        });
        assert!(
            db_from_secret && mounted,
            "{name}: results reach neither PostgreSQL nor a volume"
        );
        // Machines are told apart by node, not by the pod's hostname.
        assert!(env.iter().any(|e| e["name"] == "CONCBENCH_MACHINE_ID"
            && e["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"));
        assert_eq!(args[0], "run");
        assert!(
            args.contains(&"--label"),
            "{name}: runs are labelled by node"
        );
    }
}

/// BuildKit's verdict on deploy/Dockerfile, from `go run ./deploy/check`; `None` (after saying
/// so) when Go is missing outside CI.
fn buildkit_check() -> Option<Value> {
    let root = repo_root();
    let go = Command::new("go")
        .arg("run")
        .arg(".")
        .arg(root.join("deploy/Dockerfile"))
        .current_dir(root.join("deploy/check"))
        .output();
    let out = match go {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "go could not run ({e}): CI must have Go to check deploy/Dockerfile"
            );
            eprintln!("SKIPPED the image definition check: no Go toolchain ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "BuildKit refused deploy/Dockerfile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("the checker prints JSON"))
}

#[test]
fn the_image_definition_parses_lints_clean_and_runs_the_binary_unprivileged() {
    let Some(report) = buildkit_check() else {
        return;
    };
    assert_eq!(
        report["warnings"],
        serde_json::json!([]),
        "BuildKit lint warnings"
    );
    let stages = report["stages"].as_array().unwrap();
    assert!(stages.len() >= 2, "multi-stage: {stages:?}");
    let last = stages.last().unwrap();
    let build = stages[0]["name"].as_str().unwrap();
    assert!(
        last["copy_from"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == build),
        "the final stage copies the binary from the build stage: {last}"
    );
    let user = last["user"].as_str().unwrap();
    let uid = user.split(':').next().unwrap();
    assert!(
        !user.is_empty() && uid != "0" && uid != "root",
        "runs as root: {user:?}"
    );
    assert_eq!(last["entrypoint"], serde_json::json!(["concbench"]));
    // The Job's runAsUser is the image's user.
    let job = job();
    assert_eq!(
        job["spec"]["template"]["spec"]["securityContext"]["runAsUser"].to_string(),
        uid
    );
}
