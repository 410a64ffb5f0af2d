package rust

// Field ids of the Rust grammar (ChildByFieldName converts its argument
// to a C string on every call).
var (
	fAlias          = language.FieldIdForName("alias")
	fArgument       = language.FieldIdForName("argument")
	fArguments      = language.FieldIdForName("arguments")
	fBody           = language.FieldIdForName("body")
	fBounds         = language.FieldIdForName("bounds")
	fField          = language.FieldIdForName("field")
	fFunction       = language.FieldIdForName("function")
	fLeft           = language.FieldIdForName("left")
	fList           = language.FieldIdForName("list")
	fName           = language.FieldIdForName("name")
	fParameters     = language.FieldIdForName("parameters")
	fPath           = language.FieldIdForName("path")
	fPattern        = language.FieldIdForName("pattern")
	fReturnType     = language.FieldIdForName("return_type")
	fTrait          = language.FieldIdForName("trait")
	fType           = language.FieldIdForName("type")
	fTypeArguments  = language.FieldIdForName("type_arguments")
	fTypeParameters = language.FieldIdForName("type_parameters")
	fValue          = language.FieldIdForName("value")
)
