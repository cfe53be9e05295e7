"""String variables of a Tandem FMU through FMPy's FMI 2.0 / 3.0 Co-Simulation API.

Usage: strings.py FMU PARAMETER VALUE OUTPUT STOP
Sets the String parameter PARAMETER to VALUE, simulates to STOP in steps of the default
experiment's step size, and prints one JSON object with what FMPy read back: the parameter's
start value, the texts at the start and the end, the Integer and Boolean variables at the end,
whether setting the parameter after initialization was refused, the parameter after a
serialized FMU state round trip, and after reset.
"""

import json
import sys

from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave

path, parameter, value, output, stop = sys.argv[1:6]
stop = float(stop)
md = read_model_description(path)
vr = {v.name: v.valueReference for v in md.modelVariables}
fmi3 = md.fmiVersion.startswith("3")
cls = FMU3Slave if fmi3 else FMU2Slave
fmu = cls(guid=md.guid, unzipDirectory=extract(path),
          modelIdentifier=md.coSimulation.modelIdentifier, instanceName="strings")
fmu.instantiate()
def texts(names):
    values = fmu.getString([vr[n] for n in names])
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values]


result = {"start": texts([parameter])[0]}
fmu.setString([vr[parameter]], [value])
if fmi3:
    fmu.enterInitializationMode(startTime=0.0)
else:
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
fmu.exitInitializationMode()
result["initial"] = texts([parameter, output])
step = float(md.defaultExperiment.stepSize)
n = round(stop / step)
for k in range(n):
    fmu.doStep(k * step, step)
result["final"] = texts([output, parameter])
integers = [v for v in md.modelVariables if v.type in ("Integer", "Int32")]
booleans = [v for v in md.modelVariables if v.type == "Boolean"]
get_integer = fmu.getInt32 if fmi3 else fmu.getInteger
result["integers"] = dict(zip([v.name for v in integers], map(int, get_integer([v.valueReference for v in integers]))))
result["booleans"] = dict(zip([v.name for v in booleans], map(bool, fmu.getBoolean([v.valueReference for v in booleans]))))
try:
    fmu.setString([vr[parameter]], ["too late"])
    result["late_set_refused"] = False
except Exception:
    result["late_set_refused"] = True
state = fmu.getFMUState()
serialized = fmu.serializeFMUState(state)
fmu.freeFMUState(state)
fmu.reset()
result["after_reset"] = texts([parameter])[0]
restored = fmu.deserializeFMUState(serialized)
fmu.setFMUState(restored)
fmu.freeFMUState(restored)
result["after_restore"] = texts([parameter, output])
fmu.terminate()
fmu.freeInstance()
print(json.dumps(result))
