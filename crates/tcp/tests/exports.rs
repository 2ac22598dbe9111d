//! Every registered algorithm of every family states its ns-2 export (or refusal) and
//! its kernel settings (or why it has none): `spikelab_tcp::exports::Exports`, walked
//! over the registries themselves (the registration macros' lists), so an algorithm
//! added to any family without both statements fails here.

use spikelab_tcp::cc::CcKind;
use spikelab_tcp::exports::{Exports, Kernel, Ns2Export};
use spikelab_tcp::recovery::RecoveryKind;
use spikelab_tcp::response::ResponseOption;
use spikelab_tcp::rto::RtoConfig;
use spikelab_tcp::spurious::DetectorKind;
use spikelab_tcp::Ns2Switches;

fn recovery(name: &str) -> RecoveryKind {
    let k = RecoveryKind::from_label(name).unwrap();
    let parsed: RecoveryKind = toml::Value::String(name.to_string()).try_into().unwrap();
    assert_eq!((k, k.label()), (parsed, name));
    k
}

/// Every registered algorithm, by family and name: detectors, loss recoveries, RTO
/// estimators, congestion controllers, every value of every spurious-response option
/// and every ns-2 switch.
fn registered() -> Vec<(String, Box<dyn Exports>)> {
    let mut all: Vec<(String, Box<dyn Exports>)> = Vec::new();
    for name in DetectorKind::NAMES {
        let k = DetectorKind::from_label(name).unwrap();
        all.push((format!("spurious {name}"), Box::new(k)));
    }
    for name in RecoveryKind::NAMES {
        all.push((format!("recovery {name}"), Box::new(recovery(name))));
    }
    for name in RtoConfig::KINDS {
        let c: RtoConfig = toml::from_str(&format!("kind = \"{name}\"")).unwrap();
        all.push((format!("rto {name}"), Box::new(c)));
    }
    for &k in CcKind::ALL {
        all.push((format!("cc {}", k.name()), Box::new(k)));
    }
    for o in ResponseOption::all() {
        let (key, value) = o.key_value();
        all.push((format!("spurious.response.{key} = {value}"), Box::new(o)));
    }
    for s in Ns2Switches::DECLARED {
        all.push((format!("ns2.{}", s.name), Box::new(*s)));
    }
    all
}

#[test]
fn every_family_is_walked_whole() {
    let families = DetectorKind::NAMES.len()
        + RecoveryKind::NAMES.len()
        + RtoConfig::KINDS.len()
        + CcKind::ALL.len()
        + ResponseOption::all().len()
        + Ns2Switches::DECLARED.len();
    assert_eq!(registered().len(), families);
    // Two booleans, the restore rules and the timer adaptations.
    assert!(ResponseOption::all().len() >= 3 * 2 + 8 + 5);
}

#[test]
fn every_registered_algorithm_states_an_ns2_export_or_a_refusal() {
    for (name, a) in &registered() {
        match a.ns2() {
            Ns2Export::Agent(class) => assert!(class.starts_with("Agent/TCP/"), "{name}"),
            Ns2Export::Settings(s) => {
                assert!(!s.is_empty(), "{name}: no settings");
                for (var, value) in s {
                    assert!(var.ends_with('_') && !value.is_empty(), "{name}: {var}");
                }
            }
            Ns2Export::Native(how) => assert!(!how.trim().is_empty(), "{name}: says not where"),
            Ns2Export::Refused { why, .. } => assert!(why.len() > 10, "{name}: no reason"),
        }
    }
}

#[test]
fn every_registered_algorithm_states_its_kernel_settings_or_why_none() {
    for (name, a) in registered() {
        match a.kernel() {
            Kernel::Sysctls(s) => {
                assert!(!s.is_empty(), "{name}: no sysctls");
                assert!(s.iter().all(|(k, _)| k.starts_with("tcp_")), "{name}");
            }
            Kernel::Nothing(why) => assert!(why.len() > 10, "{name}: no reason"),
        }
    }
}

#[test]
fn each_recovery_asks_the_kernel_for_sack_exactly_when_it_uses_sack() {
    for name in RecoveryKind::NAMES {
        let k = recovery(name);
        let want: &[(&str, &str)] = if k.uses_sack() {
            &[("tcp_sack", "1")]
        } else {
            &[("tcp_sack", "0")]
        };
        assert_eq!(k.kernel(), Kernel::Sysctls(want), "{name}");
    }
}

#[test]
fn only_the_frto_detectors_turn_the_kernels_frto_on() {
    for name in DetectorKind::NAMES {
        let k = DetectorKind::from_label(name).unwrap();
        let on = matches!(k.kernel(), Kernel::Sysctls(s) if s.contains(&("tcp_frto", "2")));
        assert_eq!(on, name.contains("frto"), "{name}");
    }
}
