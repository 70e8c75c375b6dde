//! Shell completions and man pages come from the command line's definition and cover it:
//! `concbench completions SHELL` and `concbench man [--dir DIR]`.

mod common;

use common::{assert_usage_error, concbench};

fn stdout_of(args: &[&str]) -> String {
    let out = concbench().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completions_offer_the_commands_and_their_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of(&["completions", shell]);
        // Flags without their dashes: fish writes `-l keep-io-files`.
        for word in ["replicate", "keep-io-files", "io-dir", "units-per-sec"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
        assert!(
            !script.contains("__worker"),
            "{shell} offers the internal worker"
        );
    }
}

#[test]
fn the_bash_script_is_valid_bash() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("concbench.bash");
    std::fs::write(&file, stdout_of(&["completions", "bash"])).unwrap();
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
        .expect("bash runs");
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    assert_usage_error(["completions", "cmd.exe"], &["bash"]);
}

#[test]
fn the_man_page_lists_every_command() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH concbench 1"), "{page}");
    for command in ["run", "replicate", "advise", "serve", "load"] {
        assert!(
            page.contains(&format!("concbench\\-{command}(1)")),
            "{command}"
        );
    }
}

#[test]
fn man_dir_writes_a_page_per_command_with_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    concbench()
        .args(["man", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let run = std::fs::read_to_string(dir.path().join("concbench-run.1")).unwrap();
    assert!(run.contains("\\-\\-where"), "{run}");
    assert!(dir.path().join("concbench.1").exists());
    assert!(!dir.path().join("concbench-__worker.1").exists());
}

#[test]
fn man_dir_that_cannot_be_written_names_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let target = file.join("man");
    assert_usage_error(["man", "--dir", target.to_str().unwrap()], &["--dir: "]);
}
