//! The shipped model is what `train` makes from the shipped data today.

use assert_cmd::Command;

#[test]
fn retraining_reproduces_trained_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let o = Command::cargo_bin("bcast-select")
        .unwrap()
        .args([
            "train",
            "data/derin_orfeo_epyc.csv",
            "data/zampar_orfeo_thin_2024feb.csv",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "manifest.json",
        "knn.json",
        "gbm.json",
        "gam.json",
        "linear.json",
    ] {
        let shipped = std::fs::read(format!("trained/default/{f}")).unwrap();
        let fresh = std::fs::read(out.join(f)).unwrap();
        assert!(
            shipped == fresh,
            "trained/default/{f} differs from a fresh training run: retrain with \
             `bcast-select train data/*.csv --out trained/default` and commit it"
        );
    }
}
