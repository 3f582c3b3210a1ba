# SPDX-License-Identifier: GPL-3.0-or-later
# Fails if any C++ file under CORE_DIR includes a widget header, or a CMakeLists.txt there links
# Qt Widgets: core/ is the widget-free library the CLI, the GUI and the tests share.
#   cmake -DCORE_DIR=<dir> [-DWIDGETS_DIR=<qt6 include>/QtWidgets] -P check_layering.cmake
# The widget header names come from the installed QtWidgets include directory when it exists
# (so the list is complete); otherwise from the list below.
if(NOT CORE_DIR)
    message(FATAL_ERROR "CORE_DIR is not set")
endif()

set(widget_headers
    QApplication QWidget QMainWindow QDialog QMessageBox QAbstractButton QPushButton QToolButton
    QLabel QLineEdit QTextEdit QPlainTextEdit QTreeView QTableView QListView QTreeWidget
    QTableWidget QListWidget QAbstractItemView QStyledItemDelegate QItemDelegate QMenu QMenuBar
    QToolBar QStatusBar QSplitter QDockWidget QSystemTrayIcon QFileDialog QInputDialog QComboBox
    QCheckBox QRadioButton QSpinBox QProgressBar QTabWidget QStackedWidget QScrollArea QLayout
    QBoxLayout QHBoxLayout QVBoxLayout QGridLayout QFormLayout QHeaderView QStyle QFrame)
if(WIDGETS_DIR AND IS_DIRECTORY "${WIDGETS_DIR}")
    file(GLOB installed RELATIVE "${WIDGETS_DIR}" "${WIDGETS_DIR}/Q*")
    foreach(h IN LISTS installed)
        if(NOT h MATCHES "\\.h$")
            list(APPEND widget_headers ${h})
        endif()
    endforeach()
    list(REMOVE_DUPLICATES widget_headers)
endif()
list(JOIN widget_headers "|" alternatives)
# <QtWidgets>, <QtWidgets/anything>, <qwidget.h>-style lower-case headers, and the class headers.
set(pattern "^[ \t]*#[ \t]*include[ \t]*[<\"](QtWidgets([/>\"]|$)|(${alternatives})[>\"]|q(widget|mainwindow|application|dialog|messagebox)\\.h)")

file(GLOB_RECURSE sources "${CORE_DIR}/*.h" "${CORE_DIR}/*.hpp" "${CORE_DIR}/*.cpp" "${CORE_DIR}/*.cc")
set(violations "")
foreach(source IN LISTS sources)
    file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS lines)
        if(line MATCHES "${pattern}")
            string(APPEND violations "  ${source}: ${line}\n")
        endif()
    endforeach()
endforeach()
file(GLOB_RECURSE cmake_files "${CORE_DIR}/CMakeLists.txt" "${CORE_DIR}/*.cmake")
foreach(f IN LISTS cmake_files)
    file(STRINGS "${f}" lines REGEX "Widgets")
    foreach(line IN LISTS lines)
        if(NOT line MATCHES "^[ \t]*#")
            string(APPEND violations "  ${f}: ${line}\n")
        endif()
    endforeach()
endforeach()

list(LENGTH sources count)
if(violations)
    message(FATAL_ERROR "core/ must stay widget-free; found:\n${violations}")
endif()
message(STATUS "layering: ${count} files under ${CORE_DIR}, no widget dependency")
