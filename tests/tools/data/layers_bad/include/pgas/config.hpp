// A public header of the base layer.
