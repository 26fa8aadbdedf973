# analysis `predict`: jansson for the calibration file (predict_calib_file.c).
LIBS_predict := -ljansson
