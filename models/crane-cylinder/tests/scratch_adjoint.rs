use crane_cylinder::CraneCylinder;
use fmu_export::adjoint::{replay, CommunicationLinearization, EventTimeSensitivity};
use fmu_export::{Integrator, OdeSystem, StepInputs, System};

#[test]
fn scratch() {
    let sys = OdeSystem::<CraneCylinder>::default();
    let d = sys.declaration();
    let (x, u, p, disc) = (d.state_starts(), d.input_starts(), d.parameter_starts(), d.discrete_starts());
    let mut integ = sys.integrator();
    integ.initialize(&sys, 0.0, &x, &StepInputs::held(0.0, &u), &p, &disc).unwrap();
    let mut dd = disc.clone();
    let h = 1e-3;
    let mut t = 0.0;
    for _ in 0..3 { integ.do_step(&sys, t, h, &StepInputs::held(t, &u), &p, &mut dd).unwrap(); t += h; }
    let inputs = StepInputs::held(t, &u);
    let mut copy = integ.clone();
    let (_, tape) = copy.do_step_recorded(&sys, t, h, &inputs, &p, &mut dd.clone()).unwrap();
    println!("segments {}", tape.segments.len());
    for s in &tape.segments { if let fmu_export::integrators::tape::Segment::Step{t,h,end,..} = s { println!("  step t={t} h={h} {end:?}"); } }
    let lin = CommunicationLinearization::new(&sys, integ.scheme(), &tape, EventTimeSensitivity::Included).unwrap();
    let nt = lin.state_len();
    let du = vec![0.0, 1.0];
    let jvp = lin.jvp(&vec![0.0; nt], &du, &vec![0.0; p.len()]);
    for delta in [1e-3, 1e-5, 1e-7] {
        let mut up = u.clone(); up[1] += delta;
        let mut dn = u.clone(); dn[1] -= delta;
        let wstart = tape.w_start.clone();
        let a = replay(&sys, integ.scheme(), &tape, &wstart, &StepInputs::held(t, &up), &p).unwrap();
        let b = replay(&sys, integ.scheme(), &tape, &wstart, &StepInputs::held(t, &dn), &p).unwrap();
        let fd: Vec<f64> = a.iter().zip(&b).map(|(a, b)| (a - b) / (2.0 * delta)).take(4).collect();
        let run = |uu: &[f64]| { let mut c = integ.clone(); let mut d2 = dd.clone(); c.do_step(&sys, t, h, &StepInputs::held(t, uu), &p, &mut d2).unwrap(); Integrator::<OdeSystem<CraneCylinder>>::state(&c)[..4].to_vec() };
        let (ra, rb) = (run(&up), run(&dn));
        let fd2: Vec<f64> = ra.iter().zip(&rb).map(|(a, b)| (a - b) / (2.0 * delta)).collect();
        println!("delta {delta}: jvp {:?}\n replay {:?}\n adaptive {:?}", &jvp[..4], fd, fd2);
    }
}
