//! Tests of the descriptions: names, ids and aliases round-trip, every
//! collective listed once.

use super::*;

#[test]
fn ids_names_and_aliases_round_trip() {
    for c in Collective::ALL {
        assert_eq!(c.name().parse(), Ok(c));
        for (id, a) in c.ompi_algorithms().enumerate() {
            assert_eq!(c.ompi_id(a), Some(id as u8), "{c} {a}");
            assert_eq!(c.algorithm(&id.to_string()), Ok(a), "{c} {id}");
            assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
            assert_eq!(a.name().to_uppercase().parse::<Algorithm>(), Ok(a));
            // Open MPI's spelling reads back as the same algorithm.
            let name = c.ompi_name(a).unwrap();
            assert_eq!(name.parse::<Algorithm>(), Ok(a), "{c} {name}");
        }
    }
    assert_eq!("basic_linear".parse(), Ok(Algorithm::Linear));
    assert_eq!("split_binary_tree".parse(), Ok(Algorithm::SplitBinary));
    assert_eq!("binary_tree".parse(), Ok(Algorithm::Binary));
    assert_eq!("ignore".parse(), Ok(Algorithm::Default));
    assert_eq!("in_order_binary".parse(), Ok(Algorithm::InOrderBinary));
    assert!("10".parse::<Algorithm>().is_err(), "ids are a collective's");
    assert_eq!("sbbt".parse(), Ok(Algorithm::Sbbt));
    assert_eq!(Collective::Bcast.ompi_id(Algorithm::Sbbt), None);
    assert_eq!("tuned".parse(), Ok(Algorithm::Tuned));
    assert_eq!(
        Collective::Bcast.ompi_id(Algorithm::Tuned),
        Some(0),
        "tuned's own decision"
    );
    assert!("spiral".parse::<Algorithm>().is_err());
    // Allreduce's ring is no broadcast.
    assert_eq!("ring".parse(), Ok(Algorithm::Ring));
    assert!(!Collective::Bcast.knows(Algorithm::Ring));
    assert!(Collective::Bcast
        .algorithm("ring")
        .is_ok_and(|a| !Collective::Bcast.knows(a)));
}

#[test]
fn each_collective_has_its_own_ids_and_names() {
    use Collective::*;
    assert_eq!(Bcast.algorithm("4"), Ok(Algorithm::SplitBinary));
    assert_eq!(Reduce.algorithm("4"), Ok(Algorithm::Binary));
    assert_eq!(Reduce.algorithm("6"), Ok(Algorithm::InOrderBinary));
    assert_eq!(Allreduce.algorithm("4"), Ok(Algorithm::Ring));
    assert_eq!(Allreduce.algorithm("basic_linear"), Ok(Algorithm::Linear));
    assert!(Allreduce.algorithm("8").is_err());
    assert!(Bcast.algorithm("10").is_err());
    assert_eq!(Reduce.ompi_id(Algorithm::Rabenseifner), Some(7));
    assert_eq!(Allreduce.ompi_id(Algorithm::Rabenseifner), Some(6));
    assert_eq!(Bcast.ompi_id(Algorithm::Ring), None);
    assert_eq!(Bcast.ompi_name(Algorithm::Linear), Some("basic_linear"));
    assert_eq!(Reduce.ompi_name(Algorithm::Linear), Some("linear"));
    assert_eq!(Allreduce.ompi_name(Algorithm::Linear), Some("basic_linear"));
    assert_eq!(Bcast.ompi_name(Algorithm::Sbbt), None);
    assert_eq!("MPI_Reduce".parse(), Ok(Reduce));
    assert_eq!("broadcast".parse(), Ok(Bcast));
    assert!("gatherv".parse::<Collective>().is_err());
}

#[test]
fn descriptions_hold_together() {
    let mut ids = std::collections::BTreeSet::new();
    for c in Collective::ALL {
        let d = c.describe();
        assert!(ids.insert(d.ompi.coll_id), "{c}: coll id used twice");
        assert_eq!(
            d.ompi.algorithms.first().map(|a| a.algorithm),
            Some(Algorithm::Default),
            "{c}: id 0 is the library's own decision"
        );
        for a in d.measured_by_default.iter().chain(d.mpich.equivalents) {
            assert!(c.knows(*a), "{c} measures or maps {a}, which it lacks");
        }
        for a in d.own {
            assert_eq!(c.ompi_id(*a), None, "{c}: {a} is Open MPI's, not only ours");
        }
        // Reductions sum floats; their default sizes must be whole floats.
        assert_eq!(
            d.semantics.combines.is_some(),
            d.semantics.element_bytes == 4
        );
        // Sizes start at one element, a barrier's are 0 alone.
        match d.semantics.sized {
            true => assert!(d.sizes.starts_with(&d.semantics.element_bytes.to_string())),
            false => assert_eq!(d.sizes, "0", "{c}"),
        }
        assert!(c
            .accepted_names()
            .contains(c.describe().measured_by_default[0].name()));
    }
    // Files of broadcasts keep the names they had before other collectives.
    assert_eq!(Collective::LEGACY.describe().file_suffix, "");
}

#[test]
fn mpich_tables_hold_together() {
    for c in Collective::ALL {
        let table = c.describe().mpich.algorithms;
        assert!(!table.is_empty(), "{c}: MPICH has algorithms of it");
        for (i, m) in table.iter().enumerate() {
            assert!(
                table[..i].iter().all(|n| n.algorithm != m.algorithm),
                "{c}: {} listed twice",
                m.algorithm
            );
            assert_ne!(m.algorithm, Algorithm::Default, "{c}: auto is not forced");
            if let Some((a, _)) = m.runs_as {
                assert!(
                    crate::schedule::scheduled(c).contains(&a),
                    "{c}: MPICH's {} is priced as {a}, which has no schedule",
                    m.algorithm
                );
            }
            let keys: Vec<&str> = m.params.iter().map(|p| p.key).collect();
            let mut unique = keys.clone();
            unique.dedup();
            assert_eq!(keys, unique, "{c}: {} repeats a parameter", m.algorithm);
        }
    }
    use Collective::*;
    assert_eq!(
        Bcast.mpich_function(Algorithm::ScatterRingAllgather),
        "MPIR_Bcast_intra_scatter_ring_allgather"
    );
    assert_eq!(
        Alltoall.mpich_function(Algorithm::Nb),
        "MPIR_Alltoall_allcomm_nb"
    );
    // MPICH's names are its own: Open MPI's segmented binomial broadcast is
    // priced for Open MPI's rows, MPICH's blocking one as sbbt.
    let binomial = Bcast.mpich_algorithm(Algorithm::Binomial).unwrap();
    assert_eq!(binomial.runs_as, Some((Algorithm::Sbbt, 0)));
    assert!(Bcast.mpich_algorithm(Algorithm::Chain).is_none());
}

#[test]
fn mpich_restrictions_leave_out_what_would_fall_back() {
    let of = |c: Collective, a| c.mpich_algorithm(a).unwrap();
    let doubling = of(Collective::Allgather, Algorithm::RecursiveDoubling);
    assert!(doubling.unfit(4, 1, 1).is_none());
    assert!(doubling.unfit(6, 1, 1).is_some());
    // size-ge-pof2: 6 ranks need 4 elements.
    let rsag = of(Collective::Allreduce, Algorithm::ReduceScatterAllgather);
    assert!(rsag.unfit(6, 1, 3).is_some());
    assert!(rsag.unfit(6, 1, 4).is_none());
    // smp needs ranks sharing a node.
    let smp = of(Collective::Bcast, Algorithm::Smp);
    assert!(smp.unfit(4, 4, 1).is_some());
    assert!(smp.unfit(4, 2, 1).is_none());
}

/// `Collective::ALL` lists every collective once, in declaration order:
/// the match has no wildcard, so a new variant does not compile until it
/// has a position here, and then the test fails until ALL holds it there.
#[test]
fn all_lists_every_collective_once() {
    let position = |c: Collective| match c {
        Collective::Bcast => 0,
        Collective::Reduce => 1,
        Collective::Allreduce => 2,
        Collective::Allgather => 3,
        Collective::Alltoall => 4,
        Collective::Gather => 5,
        Collective::Scatter => 6,
        Collective::ReduceScatter => 7,
        Collective::ReduceScatterBlock => 8,
        Collective::Barrier => 9,
    };
    let positions: Vec<usize> = Collective::ALL.iter().map(|&c| position(c)).collect();
    assert_eq!(positions, (0..Collective::ALL.len()).collect::<Vec<_>>());
}
