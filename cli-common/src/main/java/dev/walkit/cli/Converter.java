package dev.walkit.cli;

import picocli.CommandLine;

/** An option converter from a parse function that throws IllegalArgumentException with a user-facing message. */
public abstract class Converter<T> implements CommandLine.ITypeConverter<T> {
    protected abstract T parse(String s);

    @Override
    public final T convert(String s) {
        try {
            return parse(s);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
