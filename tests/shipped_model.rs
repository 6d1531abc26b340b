//! The shipped model is what `train` makes from the shipped data today.

use assert_cmd::Command;

#[test]
fn retraining_reproduces_trained_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    // This project's own campaign of one machine: a model never blends
    // machines.
    let data = ["data/local-2core.csv"];
    let o = Command::cargo_bin("collsel")
        .unwrap()
        .arg("train")
        .args(data)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "manifest.json",
        "analytical.json",
        "knn.json",
        "gbm.json",
        "gam.json",
        "linear.json",
        "hybrid-knn.json",
        "hybrid-gbm.json",
        "hybrid-gam.json",
        "measured.json",
    ] {
        let shipped = std::fs::read(format!("trained/default/{f}")).unwrap();
        let fresh = std::fs::read(out.join(f)).unwrap();
        assert!(
            shipped == fresh,
            "trained/default/{f} differs from a fresh training run: retrain with \
             `collsel train data/local-2core.csv --out trained/default` \
             and commit it"
        );
    }
}
