a = "xy"
