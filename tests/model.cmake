runwatch_add_test(tst_runmodel SOURCES tst_runmodel.cpp LIBS runwatch_core)
runwatch_add_test(tst_jsonscan SOURCES tst_jsonscan.cpp tst_jsonscan_rows.cpp LIBS runwatch_core)
runwatch_add_test(tst_openaimapping SOURCES tst_openaimapping.cpp LIBS runwatch_core)
runwatch_add_test(tst_runstore SOURCES tst_runstore.cpp LIBS runwatch_core)
