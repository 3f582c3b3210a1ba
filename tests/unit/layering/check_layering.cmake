# SPDX-License-Identifier: GPL-3.0-or-later
# Checks one layering rule over the sources under DIR (docs/architecture.md):
#   cmake -DMODE=<mode> -DDIR=<dir> [-DWIDGETS_DIR=<qt6 include>/QtWidgets] -P check_layering.cmake
# MODE
#   widget-free   no C++ file includes a widget header; no CMake file links Qt Widgets (core/, sim/)
#   no-client     no C++ file includes a client header (core/'s folders); no CMake file links a
#                 client library (sim/: a misunderstanding shared by client and simulator hides)
#   widgets-only  every unit (a .cpp and its .h) uses a widget or paints (QPainter, QIcon, ...),
#                 directly or through a header of DIR that does (ui/: rules without a widget
#                 belong in core/)
#   floors        core/'s folders are floors (FLOORS: "a,b|c|d", lowest first; folders on one
#                 floor separated by commas): a file includes only its own floor's and lower floors'
#                 folders, and a connector folder (backends/<name>/) no other connector's folder;
#                 a shared folder (shared_backend_folders below: what several connectors share,
#                 no connector itself) may be included by any connector and includes none
# The widget header names come from the installed QtWidgets include directory when it exists (so
# the list is complete); otherwise from the list below.
cmake_policy(SET CMP0057 NEW) # if(... IN_LIST ...)
# Folders under backends/ that are no connector: the managed agent session model (issue 29) that
# the claude-agents and openai-agents connectors share.
set(shared_backend_folders agentsessions)
if(NOT DIR OR NOT MODE)
    message(FATAL_ERROR "DIR and MODE must be set")
endif()

set(widget_headers
    QApplication QWidget QMainWindow QDialog QMessageBox QAbstractButton QPushButton QToolButton
    QLabel QLineEdit QTextEdit QPlainTextEdit QTreeView QTableView QListView QTreeWidget
    QTableWidget QListWidget QAbstractItemView QStyledItemDelegate QItemDelegate QMenu QMenuBar
    QToolBar QStatusBar QSplitter QDockWidget QSystemTrayIcon QFileDialog QInputDialog QComboBox
    QCheckBox QRadioButton QSpinBox QProgressBar QTabWidget QStackedWidget QScrollArea QLayout
    QBoxLayout QHBoxLayout QVBoxLayout QGridLayout QFormLayout QHeaderView QStyle QFrame QAction)
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
set(widget_pattern "^[ \t]*#[ \t]*include[ \t]*[<\"](QtWidgets([/>\"]|$)|(${alternatives})[>\"]|q(widget|mainwindow|application|dialog|messagebox)\\.h)")
# Painting (Qt GUI): icons, palettes, painters — presentation, which ui/ may hold besides widgets.
set(paint_pattern "^[ \t]*#[ \t]*include[ \t]*<(QPainter|QPainterPath|QIcon|QPixmap|QPixmapCache|QSvgRenderer|QPalette|QImage|QFontMetrics|QGuiApplication|QClipboard|QTextDocument|QTextCursor)>")
# The client's folders (core/): a quoted include starting with one of them.
set(client_pattern "^[ \t]*#[ \t]*include[ \t]*\"(domain|json|net|backends|connections|engine|models|model|backend)/")

file(GLOB_RECURSE sources "${DIR}/*.h" "${DIR}/*.hpp" "${DIR}/*.cpp" "${DIR}/*.cc")
file(GLOB_RECURSE cmake_files "${DIR}/CMakeLists.txt" "${DIR}/*.cmake")
set(violations "")

if(MODE STREQUAL "widget-free" OR MODE STREQUAL "no-client")
    if(MODE STREQUAL "widget-free")
        set(pattern "${widget_pattern}")
        set(cmake_pattern "Widgets")
    else()
        set(pattern "${client_pattern}")
        set(cmake_pattern "runwatch_(core|ui|cli|app)")
    endif()
    foreach(source IN LISTS sources)
        file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include")
        foreach(line IN LISTS lines)
            if(line MATCHES "${pattern}")
                string(APPEND violations "  ${source}: ${line}\n")
            endif()
        endforeach()
    endforeach()
    foreach(f IN LISTS cmake_files)
        file(STRINGS "${f}" lines REGEX "${cmake_pattern}")
        foreach(line IN LISTS lines)
            if(NOT line MATCHES "^[ \t]*#")
                string(APPEND violations "  ${f}: ${line}\n")
            endif()
        endforeach()
    endforeach()
elseif(MODE STREQUAL "widgets-only")
    # A file uses widgets when it includes a widget header or a header of DIR that does (to a
    # fixed point); a unit passes when its .cpp or its .h does.
    set(with_widgets "")
    foreach(source IN LISTS sources)
        get_filename_component(name "${source}" NAME)
        file(STRINGS "${source}" includes_${name} REGEX "^[ \t]*#[ \t]*include")
        foreach(line IN LISTS includes_${name})
            if(line MATCHES "${widget_pattern}" OR line MATCHES "${paint_pattern}")
                list(APPEND with_widgets "${name}")
                break()
            endif()
        endforeach()
    endforeach()
    set(changed TRUE)
    while(changed)
        set(changed FALSE)
        foreach(source IN LISTS sources)
            get_filename_component(name "${source}" NAME)
            if(name IN_LIST with_widgets)
                continue()
            endif()
            foreach(line IN LISTS includes_${name})
                if(line MATCHES "#[ \t]*include[ \t]*\"([^\"/]+)\"")
                    if(CMAKE_MATCH_1 IN_LIST with_widgets)
                        list(APPEND with_widgets "${name}")
                        set(changed TRUE)
                        break()
                    endif()
                endif()
            endforeach()
        endforeach()
    endwhile()
    foreach(source IN LISTS sources)
        if(NOT source MATCHES "\\.(cpp|cc)$")
            continue()
        endif()
        get_filename_component(name "${source}" NAME)
        get_filename_component(stem "${source}" NAME_WE)
        if(NOT name IN_LIST with_widgets AND NOT "${stem}.h" IN_LIST with_widgets)
            string(APPEND violations "  ${source}: neither a widget nor painting in this unit\n")
        endif()
    endforeach()
elseif(MODE STREQUAL "floors")
    if(NOT FLOORS)
        message(FATAL_ERROR "MODE floors needs FLOORS")
    endif()
    # FLOORS is "a,b|c|d": floors lowest first, separated by "|", each a comma list of folders.
    string(REPLACE "|" ";" floors "${FLOORS}")
    set(rank 0)
    foreach(floor IN LISTS floors)
        string(REPLACE "," ";" folders "${floor}")
        foreach(folder IN LISTS folders)
            set(rank_${folder} ${rank})
        endforeach()
        math(EXPR rank "${rank} + 1")
    endforeach()
    foreach(source IN LISTS sources)
        file(RELATIVE_PATH rel "${DIR}" "${source}")
        if(NOT rel MATCHES "^([^/]+)/")
            continue()
        endif()
        set(own "${CMAKE_MATCH_1}")
        if(NOT DEFINED rank_${own})
            string(APPEND violations "  ${source}: folder ${own}/ is on no floor\n")
            continue()
        endif()
        set(own_connector "")
        if(rel MATCHES "^backends/([^/]+)/")
            set(own_connector "${CMAKE_MATCH_1}")
        endif()
        file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
        foreach(line IN LISTS lines)
            if(NOT line MATCHES "#[ \t]*include[ \t]*\"([^\"/]+)/([^\"]*)\"")
                continue()
            endif()
            set(target "${CMAKE_MATCH_1}")
            set(rest "${CMAKE_MATCH_2}")
            if(NOT DEFINED rank_${target})
                continue() # not a folder of DIR (a generated or third-party header)
            endif()
            if(rank_${target} GREATER rank_${own})
                string(APPEND violations "  ${source}: ${line} (${target}/ is on a floor above ${own}/)\n")
            elseif(target STREQUAL "backends" AND own_connector AND rest MATCHES "^([^/]+)/"
                   AND NOT CMAKE_MATCH_1 STREQUAL own_connector
                   AND NOT (CMAKE_MATCH_1 IN_LIST shared_backend_folders
                            AND NOT own_connector IN_LIST shared_backend_folders))
                string(APPEND violations "  ${source}: ${line} (a connector includes no other connector)\n")
            endif()
        endforeach()
    endforeach()
else()
    message(FATAL_ERROR "unknown MODE ${MODE}")
endif()

list(LENGTH sources count)
if(violations)
    message(FATAL_ERROR "${DIR} breaks the ${MODE} rule:\n${violations}")
endif()
message(STATUS "layering: ${count} files under ${DIR} keep the ${MODE} rule")
