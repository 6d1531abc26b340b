//! Tests of `verify`: rules files read back, checked and compared.

use super::*;

const RULES: &str = "1\n7 # bcast\n1\n4\n2\n0 0 0 0\n1048576 3 0 1024\n";
const HAN_RULES: &str = "1\n7\n1\n2\n1\n1\n2\n0 han\n65536 tuned\n";

fn env(version: (u32, u32, u32)) -> Environment {
    Environment {
        library: format!("Open MPI v{}.{}.{}", version.0, version.1, version.2),
        version: Some(version),
        tuned_rules: true,
        tuned_file: "/r/rules".into(),
        tuned_priority: 30,
        han: (version.0 >= 5).then(|| Han {
            rules: false,
            file: String::new(),
            priority: 35,
        }),
        coll: String::new(),
    }
}

fn files(path: &str) -> std::io::Result<Vec<u8>> {
    match path {
        "/r/rules" => Ok(RULES.into()),
        "/r/han" => Ok(HAN_RULES.into()),
        "/r/v2" => Ok(format!("rule-file-version-2\n{RULES}").into()),
        "/r/bad" => Ok(b"1\n7\n1\n4\n2\n0 0 0 0\n".to_vec()),
        "/r/99" => Ok(b"1\n7\n1\n4\n1\n0 99 0 0\n".to_vec()),
        _ => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
    }
}

#[test]
fn versions_from_the_library_string() {
    assert_eq!(
        ompi_version("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"),
        Some((4, 1, 4))
    );
    assert_eq!(ompi_version("Open MPI v5.0.9rc1, package"), Some((5, 0, 9)));
    assert_eq!(ompi_version("MPICH Version: 5.0.0"), None);
}

/// Each way a named file is not in effect is one line naming the variable
/// or the file.
#[test]
fn named_files_not_in_effect_are_refused_by_name() {
    let e = env((4, 1, 4));
    assert!(e.load(files).is_ok());
    let cases: Vec<(Environment, &str)> = vec![
        (
            Environment {
                tuned_rules: false,
                ..e.clone()
            },
            "coll_tuned_use_dynamic_rules is 0",
        ),
        (
            Environment {
                tuned_file: "/r/missing".into(),
                ..e.clone()
            },
            "cannot read /r/missing",
        ),
        (
            Environment {
                tuned_file: "/r/bad".into(),
                ..e.clone()
            },
            "/r/bad: line 7, column 1: expected the message size of rule 2",
        ),
        (
            Environment {
                tuned_file: "/r/99".into(),
                ..e.clone()
            },
            "/r/99: line 6, column 1: bcast algorithm 99",
        ),
        (
            Environment {
                tuned_file: "/r/v2".into(),
                ..e.clone()
            },
            "version-2 header",
        ),
        (
            Environment {
                tuned_file: String::new(),
                ..e.clone()
            },
            "no rules file is in effect",
        ),
        (
            Environment {
                version: None,
                library: "MPICH".into(),
                ..e.clone()
            },
            "Open MPI's rules files",
        ),
    ];
    for (env, message) in cases {
        let error = env.load(files).unwrap_err();
        assert!(error.contains(message), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
    // 5.0.9 reads the version-2 header.
    let v2 = Environment {
        tuned_file: "/r/v2".into(),
        ..env((5, 0, 9))
    };
    assert!(v2.load(files).is_ok());
    let han_off = Environment {
        han: Some(Han {
            rules: false,
            file: "/r/han".into(),
            priority: 35,
        }),
        ..env((5, 0, 9))
    };
    let error = han_off.load(files).unwrap_err();
    assert!(
        error.contains("coll_han_use_dynamic_file_rules is 0"),
        "{error}"
    );
}

/// The rules' decision where tuned serves the call, and where HAN does
/// (across nodes, Open MPI 5) and hands sizes to tuned or keeps them.
#[test]
fn what_the_files_decide_by_component() {
    let e = env((4, 1, 4));
    let loaded = e.load(files).unwrap();
    let at = |env: &Environment, loaded: &InEffect, nodes, m| {
        let x = loaded.expected(env, Collective::Bcast, 4, nodes, m);
        (x.served_by, x.rule.map(|c| c.to_string()))
    };
    assert_eq!(at(&e, &loaded, 1, 4), ("tuned".into(), None));
    assert_eq!(
        at(&e, &loaded, 1, 4 << 20),
        ("tuned".into(), Some("pipeline seg=1024".into()))
    );
    // 4.1 has no HAN: tuned across nodes too.
    assert_eq!(at(&e, &loaded, 2, 4 << 20).0, "tuned");
    let five = Environment {
        han: Some(Han {
            rules: true,
            file: "/r/han".into(),
            priority: 35,
        }),
        ..env((5, 0, 9))
    };
    let loaded = five.load(files).unwrap();
    assert_eq!(at(&five, &loaded, 2, 4), ("han".into(), None));
    assert_eq!(
        at(&five, &loaded, 2, 4 << 20),
        ("han -> tuned".into(), Some("pipeline seg=1024".into()))
    );
    assert_eq!(at(&five, &loaded, 1, 4 << 20).0, "tuned", "one node");
    let without_han = Environment {
        coll: "^han".into(),
        ..five.clone()
    };
    assert_eq!(at(&without_han, &loaded, 2, 4).0, "tuned");
}

fn speedup(speedup: f64, half: f64) -> Speedup {
    Speedup {
        speedup,
        low: speedup * (-half).exp(),
        high: speedup * half.exp(),
        rounds: 8,
        replicas: 0,
        weakest: None,
        disturbed: None,
    }
}

#[test]
fn the_job_times_like_the_rule_or_like_the_library() {
    // The rule alone is 5x slower than the library's choice.
    let rule = speedup(0.2, 0.05);
    assert_eq!(seen(&speedup(0.21, 0.05), &rule), Seen::Yes);
    assert_eq!(seen(&speedup(0.98, 0.05), &rule), Seen::No);
    assert_eq!(
        seen(&speedup(0.5, 0.05), &speedup(1.01, 0.05)),
        Seen::Unclear
    );
    // The job's interval holds both the library (1) and the rule (1.13).
    assert_eq!(
        seen(&speedup(0.94, 0.17), &speedup(1.13, 0.06)),
        Seen::Unclear
    );
    assert_eq!(seen(&speedup(1.12, 0.02), &speedup(1.13, 0.06)), Seen::Yes);
    let expected = Expected {
        served_by: "tuned".into(),
        rule: None,
    };
    let row = |job, rule| Row::new(Collective::Bcast, 4, 1 << 22, &expected, job, rule);
    let ignored = [
        row(speedup(0.99, 0.05), Some(rule)),
        row(speedup(1.0, 0.05), None),
    ];
    assert!(timing_verdict(&ignored)
        .unwrap_err()
        .contains("times like the library's own choice"));
    let applied = [
        row(speedup(0.2, 0.05), Some(rule)),
        row(speedup(0.98, 0.05), Some(rule)),
    ];
    assert!(timing_verdict(&applied).is_ok());
    let text = table(&applied);
    assert!(text.contains("yes (the rule alone: 0.200)"), "{text}");
    assert!(text.contains("NO"), "{text}");
}

#[test]
fn mpich_selection_in_effect_only_for_collectives_taken_from_the_device() {
    let env = |file: &str, device: &str, bcast_device: bool| MpichEnvironment {
        library: "MPICH Version: 5.0.2".into(),
        selection_file: file.into(),
        device_collectives: device.into(),
        device: vec![
            (Collective::Bcast, bcast_device),
            (Collective::Allreduce, false),
        ],
    };
    assert_eq!(env("/x.json", "percoll", false).in_effect(), Ok(()));
    let unnamed = env("", "percoll", false).in_effect().unwrap_err();
    assert!(
        unnamed.contains("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"),
        "{unnamed}"
    );
    // The device layer keeps bcast: the file is not consulted for it.
    let kept = env("/x.json", "percoll", true).in_effect().unwrap_err();
    assert!(
        kept.contains("MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0"),
        "{kept}"
    );
    assert!(!kept.contains("ALLREDUCE"), "{kept}");
    let all = env("/x.json", "all", false).in_effect().unwrap_err();
    assert!(all.contains("percoll"), "{all}");
    // `none`: no device layer to compare with.
    let none = env("/x.json", "none", false).in_effect().unwrap_err();
    assert!(none.contains("cannot be timed"), "{none}");
}
