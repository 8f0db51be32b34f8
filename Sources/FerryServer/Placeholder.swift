import FerryKit
