// libFuzzer harness of the wallpaper's reply parser (scripts/fuzz N plasma-reply).
#include "widgetdreply.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QJsonObject reply;
    QString why;
    const QByteArray bytes(reinterpret_cast<const char *>(data), int(size));
    if (widgetdParseReply(bytes, &reply, &why))
        widgetdFieldOrder(bytes);
    return 0;
}
