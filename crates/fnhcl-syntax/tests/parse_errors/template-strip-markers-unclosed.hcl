a = "%{~ if x ~}y"
