//! Calls that break the FMI contract, made on every model crate through its FMI 2.0 and FMI 3.0
//! C ABI: each must return Error with a log line naming the problem, never abort the process,
//! and leave the instance usable for correct calls.

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::checked::Checked;
use common::model::Model;
use common::{Fmi2, Fmi3, Interface};
use fmu_export::fmi2::types::Fmi2Status;
use fmu_export::fmi3::types::{Fmi3Instance, Fmi3Status};
use tandem_tests::fmus::FmiVersion;

/// A value reference no model declares.
const UNKNOWN: u32 = u32::MAX;

/// The first real variable that can be read in every state (time).
fn any_real(model: &Model) -> u32 {
    model.vr("time")
}

/// A handle the FMU never issued.
fn bogus() -> *mut c_void {
    0x1234usize as *mut c_void
}

#[test]
fn fmi3_bad_calls_on_every_model_are_errors() {
    for model in Model::all(FmiVersion::Fmi3) {
        let inst: Fmi3 = Checked::create(&model, Interface::CoSimulation);
        let name = &model.package;
        let expect = |status: Fmi3Status, log: &str, what: &str| {
            assert_eq!(status, Fmi3Status::Error, "{name}: {what}");
            assert!(
                inst.messages.contains(log),
                "{name}: {what}: no `{log}` in {:#?}",
                inst.messages.all()
            );
        };

        let (status, _) = inst.do_step(0.0, 1e-3);
        expect(
            status,
            "fmi3DoStep: not allowed in",
            "doStep before initialization",
        );

        let (status, _) = inst.get_float64(&[UNKNOWN]);
        expect(
            status,
            &format!("unknown value reference {UNKNOWN}"),
            "get of an unknown vr",
        );
        let status = inst.set_float64(&[UNKNOWN], &[1.0]);
        expect(
            status,
            &format!("unknown value reference {UNKNOWN}"),
            "set of an unknown vr",
        );

        let get = model.fmu.func::<common::Values3<f64>>("fmi3GetFloat64");
        let set = model.fmu.func::<common::SetValues3<f64>>("fmi3SetFloat64");
        let real = [any_real(&model)];
        let mut value = [0.0];
        // SAFETY: deliberately NULL arrays and handles; the FMU must reject them unread.
        unsafe {
            let status = get(inst.i, real.as_ptr(), 1, null_mut(), 1);
            expect(status, "argument values is NULL", "NULL values");
            let status = get(inst.i, null(), 1, value.as_mut_ptr(), 1);
            expect(status, "is NULL", "NULL value references");
            let status = set(inst.i, real.as_ptr(), 1, null(), 1);
            expect(status, "is NULL", "NULL values to set");
            assert_eq!(
                get(null_mut(), real.as_ptr(), 1, value.as_mut_ptr(), 1),
                Fmi3Status::Error
            );
            assert_eq!(
                get(bogus(), real.as_ptr(), 1, value.as_mut_ptr(), 1),
                Fmi3Status::Error
            );
        }

        type GetState = unsafe extern "C" fn(Fmi3Instance, *mut *mut c_void) -> Fmi3Status;
        // SAFETY: a deliberately NULL state slot.
        let status = unsafe { model.fmu.func::<GetState>("fmi3GetFMUState")(inst.i, null_mut()) };
        expect(status, "is NULL", "NULL FMU-state slot");
        expect(
            inst.set_state(bogus()),
            "was not created by this instance",
            "foreign FMU state",
        );
        let (status, state) = inst.deserialize(b"not a state");
        expect(
            status,
            "not a serialized FMU state of this model",
            "garbage serialized state",
        );
        assert!(state.is_null());

        // The errors left the instance usable: it initializes and steps.
        inst.initialize_ok();
        let (status, last) = inst.do_step(0.0, 1e-3);
        assert_eq!(
            (status, last),
            (Fmi3Status::Ok, 1e-3),
            "{name}: {:#?}",
            inst.messages.all()
        );

        type DoStep = unsafe extern "C" fn(
            Fmi3Instance,
            f64,
            f64,
            u8,
            *mut u8,
            *mut u8,
            *mut u8,
            *mut f64,
        ) -> Fmi3Status;
        let (mut event, mut terminate, mut early) = (0u8, 0u8, 0u8);
        // SAFETY: a deliberately NULL lastSuccessfulTime; the other out-pointers are valid.
        let status = unsafe {
            model.fmu.func::<DoStep>("fmi3DoStep")(
                inst.i,
                1e-3,
                1e-3,
                1,
                &mut event,
                &mut terminate,
                &mut early,
                null_mut(),
            )
        };
        expect(
            status,
            "argument lastSuccessfulTime is NULL",
            "NULL lastSuccessfulTime",
        );

        let knowns = [model.vr("time")];
        let (status, _) = inst.product(false, &[UNKNOWN], &knowns, &[1.0]);
        expect(
            status,
            &format!("unknown value reference {UNKNOWN}"),
            "derivative of an unknown vr",
        );
        let (status, _) = inst.product(true, &real, &knowns, &[1.0]);
        expect(
            status,
            "is neither a state derivative nor a continuous output",
            "time as an unknown",
        );

        // SAFETY: a NULL and a made-up handle, which the FMU must ignore.
        unsafe {
            let free = model
                .fmu
                .func::<unsafe extern "C" fn(Fmi3Instance)>("fmi3FreeInstance");
            free(null_mut());
            free(bogus());
        }
        let (status, _) = inst.do_step(1e-3, 1e-3);
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{name}: still usable after the bad frees"
        );
    }
}

#[test]
fn fmi2_bad_calls_on_every_model_are_errors() {
    for model in Model::all(FmiVersion::Fmi2) {
        let inst: Fmi2 = Checked::create(&model, Interface::CoSimulation);
        let name = &model.package;
        let expect = |status: Fmi2Status, log: &str, what: &str| {
            assert_eq!(status, Fmi2Status::Error, "{name}: {what}");
            assert!(
                inst.messages.contains(log),
                "{name}: {what}: no `{log}` in {:#?}",
                inst.messages.all()
            );
        };

        expect(
            inst.do_step(0.0, 1e-3),
            "fmi2DoStep: not allowed in",
            "doStep before initialization",
        );
        let (status, _) = inst.get_real(&[UNKNOWN]);
        expect(
            status,
            &format!("unknown value reference {UNKNOWN}"),
            "get of an unknown vr",
        );
        let status = inst.set_real(&[UNKNOWN], &[1.0]);
        expect(
            status,
            &format!("unknown value reference {UNKNOWN}"),
            "set of an unknown vr",
        );

        let get = model.fmu.func::<common::Values2<f64>>("fmi2GetReal");
        let real = [any_real(&model)];
        let mut value = [0.0];
        // SAFETY: deliberately NULL arrays and handles; the FMU must reject them unread.
        unsafe {
            expect(
                get(inst.c, real.as_ptr(), 1, null_mut()),
                "argument values is NULL",
                "NULL values",
            );
            expect(
                get(inst.c, null(), 1, value.as_mut_ptr()),
                "is NULL",
                "NULL value references",
            );
            assert_eq!(
                get(null_mut(), real.as_ptr(), 1, value.as_mut_ptr()),
                Fmi2Status::Error
            );
        }
        expect(
            inst.set_state(bogus()),
            "was not created by this instance",
            "foreign FMU state",
        );

        inst.initialize_ok();
        assert_eq!(
            inst.do_step(0.0, 1e-3),
            Fmi2Status::Ok,
            "{name}: {:#?}",
            inst.messages.all()
        );
        let (status, _) = inst.directional(&[UNKNOWN], &real, &[1.0]);
        expect(
            status,
            &format!("unknown value reference {UNKNOWN}"),
            "derivative of an unknown vr",
        );
    }
}
