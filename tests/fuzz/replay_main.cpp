// SPDX-License-Identifier: GPL-3.0-or-later
// A main() for the fuzz targets in ordinary builds (gcc, the sanitizer build, no libFuzzer): runs
// LLVMFuzzerTestOneInput once on every file of the given corpus directories. ctest runs it over
// tests/fuzz/corpus/<target>/, so each seed and every saved crash input (regression-*) is a
// regression test everywhere; a violated invariant aborts, a sanitizer finding fails the run.
#include <QDir>
#include <QDirIterator>
#include <QFile>

#include <cstdint>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; ++i) {
        const QString path = QString::fromLocal8Bit(argv[i]);
        QStringList inputs;
        if (QFileInfo(path).isDir()) {
            QDirIterator it(path, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext())
                inputs << it.next();
            inputs.sort();
        } else {
            inputs << path;
        }
        for (const QString &input : std::as_const(inputs)) {
            QFile file(input);
            if (!file.open(QIODevice::ReadOnly)) {
                std::fprintf(stderr, "cannot read %s\n", qPrintable(input));
                return 2;
            }
            const QByteArray bytes = file.readAll();
            std::fprintf(stderr, "%s\n", qPrintable(input));
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.constData()),
                                   size_t(bytes.size()));
            ++files;
        }
    }
    std::fprintf(stderr, "replayed %d inputs\n", files);
    return files > 0 ? 0 : 2;
}
