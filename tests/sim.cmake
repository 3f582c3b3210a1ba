# Simulator tests: a plain QNetworkAccessManager / QTcpSocket client, never runwatch_core.
runwatch_add_test(tst_simulator SOURCES tst_simulator.cpp LIBS runwatch_sim Qt6::Network)
